// Pet store interface v1 on Koa.
//
// Written from the interface document (pet-store-interface.md): three
// operations under /v1, bearer-token authentication, Error records
// ({ code, message, status }) for every error response, animals kept in memory.

import Koa from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';

const PORT = Number(process.env.PORT || 3000);
const HOST = '127.0.0.1';
const API_KEY = process.env.API_KEY;

if (!API_KEY) {
  console.error('API_KEY is not set');
  process.exit(1);
}

const STATUSES = ['available', 'pending', 'sold'];
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;
// GET /pets/{petId} is deprecated and removed on 5 December 2030 (section 9).
const GET_PET_SUNSET = 'Thu, 05 Dec 2030 00:00:00 GMT';

// In-memory store.
const pets = new Map();
let nextId = 1;

const ERROR_CODES = {
  400: 'bad_request',
  401: 'unauthorized',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  500: 'internal_error',
};

function errorBody(status, message) {
  return { code: ERROR_CODES[status] || 'error', message, status };
}

const app = new Koa();

// Turn every thrown error into an Error record.
app.use(async (ctx, next) => {
  try {
    await next();
  } catch (err) {
    const status = err.status || err.statusCode || 500;
    const message = status < 500 ? err.message : 'internal server error';
    ctx.status = status;
    ctx.body = errorBody(status, message);
    if (status >= 500) ctx.app.emit('error', err, ctx);
  }
});

// Authentication: every operation needs "Authorization: Bearer <API_KEY>".
app.use(async (ctx, next) => {
  const header = ctx.get('Authorization');
  const match = /^Bearer\s+(.+)$/i.exec(header);
  if (!match || match[1] !== API_KEY) {
    ctx.throw(401, 'missing or invalid API key');
  }
  await next();
});

app.use(bodyParser());

const router = new Router({ prefix: '/v1' });

// listPets
router.get('/pets', (ctx) => {
  let limit = DEFAULT_LIMIT;
  if (ctx.query.limit !== undefined) {
    limit = Number(ctx.query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
      ctx.throw(400, `limit must be an integer between 1 and ${MAX_LIMIT}`);
    }
  }

  const { status } = ctx.query;
  if (status !== undefined && !STATUSES.includes(status)) {
    ctx.throw(400, `status must be one of ${STATUSES.join(', ')}`);
  }

  let result = [...pets.values()];
  if (status !== undefined) {
    result = result.filter((pet) => pet.status === status);
  }
  ctx.body = result.slice(0, limit);
});

// createPet
router.post('/pets', (ctx) => {
  const body = ctx.request.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    ctx.throw(400, 'request body must be a JSON object');
  }

  const { name, categoryId, status } = body;
  if (typeof name !== 'string') {
    ctx.throw(400, 'name is required and must be a string');
  }
  if (!Number.isInteger(categoryId)) {
    ctx.throw(400, 'categoryId is required and must be an integer');
  }
  if (status !== undefined && !STATUSES.includes(status)) {
    ctx.throw(400, `status must be one of ${STATUSES.join(', ')}`);
  }

  const pet = { id: nextId++, name, categoryId };
  if (status !== undefined) pet.status = status;
  pets.set(pet.id, pet);

  ctx.status = 201;
  ctx.set('Location', `/v1/pets/${pet.id}`);
  ctx.body = pet;
});

// getPet (deprecated)
router.get('/pets/:petId', (ctx) => {
  ctx.set('Sunset', GET_PET_SUNSET);
  const pet = pets.get(Number(ctx.params.petId));
  if (!pet) {
    ctx.throw(404, `pet ${ctx.params.petId} not found`);
  }
  ctx.body = pet;
});

app.use(router.routes());
app.use(router.allowedMethods());

app.listen(PORT, HOST, () => {
  console.log(`pet store (koa) listening on http://${HOST}:${PORT}/v1`);
});
