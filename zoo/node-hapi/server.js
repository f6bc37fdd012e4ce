'use strict';

// Pet store interface v1 on hapi, with joi validation.
//
// Written from the interface document (pet-store-interface.md): three operations under
// /v1, a bearer-token auth scheme, joi schemas for the query, the path and the payload,
// Error records ({ code, message, status }) for every error response, animals in memory.

const Hapi = require('@hapi/hapi');
const Boom = require('@hapi/boom');
const Joi = require('joi');

const PORT = Number(process.env.PORT || 3000);
const HOST = '127.0.0.1';
const API_KEY = process.env.API_KEY;

if (!API_KEY) {
  console.error('API_KEY is not set');
  process.exit(1);
}

const STATUSES = ['available', 'pending', 'sold'];
// GET /pets/{petId} is deprecated and removed on 5 December 2030 (section 9).
const GET_PET_SUNSET = 'Thu, 05 Dec 2030 00:00:00 GMT';

// In-memory store.
const pets = new Map();
let nextId = 1;

// Validation errors: show the joi message instead of hapi's generic one.
const failAction = (request, h, err) => {
  throw Boom.badRequest(err.details ? err.details.map((d) => d.message).join('; ') : err.message);
};

// "Authorization: Bearer <API_KEY>" (section 5).
const bearerScheme = () => ({
  authenticate: (request, h) => {
    const authorization = request.headers.authorization;
    if (!authorization) {
      throw Boom.unauthorized(null, 'Bearer');
    }
    const [scheme, token] = authorization.split(/\s+/);
    if (scheme.toLowerCase() !== 'bearer' || !token) {
      throw Boom.unauthorized('missing or invalid API key', 'Bearer');
    }
    if (token !== API_KEY) {
      throw Boom.unauthorized('missing or invalid API key', 'Bearer');
    }
    return h.authenticated({ credentials: { key: token } });
  },
});

const petSchema = Joi.object({
  name: Joi.string().required(),
  categoryId: Joi.number().integer().required(),
  status: Joi.string().valid(...STATUSES),
});

const init = async () => {
  const server = Hapi.server({ port: PORT, host: HOST });
  server.validator(Joi);

  server.auth.scheme('bearer', bearerScheme);
  server.auth.strategy('api-key', 'bearer');
  server.auth.default('api-key');

  // Every error response as an Error record (section 7).
  server.ext('onPreResponse', (request, h) => {
    const response = request.response;
    if (!response.isBoom) {
      return h.continue;
    }
    const { statusCode, error, message } = response.output.payload;
    const body = {
      code: error.toLowerCase().replace(/ /g, '_'),
      message: message || error,
      status: statusCode,
    };
    const r = h.response(body).code(statusCode);
    for (const [name, value] of Object.entries(response.output.headers)) {
      r.header(name, value);
    }
    return r;
  });

  server.route({
    method: 'GET',
    path: '/v1/pets',
    options: {
      validate: {
        query: Joi.object({
          limit: Joi.number().integer().min(1).max(100).default(20),
          status: Joi.string().valid(...STATUSES),
        }),
        failAction,
      },
    },
    handler: (request) => {
      const { limit, status } = request.query;
      let list = [...pets.values()];
      if (status) {
        list = list.filter((p) => p.status === status);
      }
      return list.slice(0, limit);
    },
  });

  server.route({
    method: 'POST',
    path: '/v1/pets',
    options: {
      validate: { payload: petSchema, failAction },
    },
    handler: (request, h) => {
      const pet = { id: nextId++, ...request.payload };
      pets.set(pet.id, pet);
      return h.response(pet).code(201).header('Location', `/v1/pets/${pet.id}`);
    },
  });

  // Deprecated (section 4.3); kept until 5 December 2030.
  server.route({
    method: 'GET',
    path: '/v1/pets/{petId}',
    options: {
      validate: {
        params: Joi.object({ petId: Joi.number().integer().required() }),
        failAction,
      },
    },
    handler: (request, h) => {
      const pet = pets.get(request.params.petId);
      if (!pet) {
        throw Boom.notFound(`pet ${request.params.petId} not found`);
      }
      return h.response(pet).header('Deprecation', 'true').header('Sunset', GET_PET_SUNSET);
    },
  });

  await server.start();
  console.log('pet store listening on %s', server.info.uri);
};

process.on('unhandledRejection', (err) => {
  console.error(err);
  process.exit(1);
});

init();
