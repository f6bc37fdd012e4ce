// Pet store interface v1 on Hono (Node adapter).
//
// Written from the interface document (pet-store-interface.md): three
// operations under /v1, bearer-token authentication, Error records
// ({ code, message, status }) for error responses, animals kept in memory.

import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { HTTPException } from 'hono/http-exception';
import { zValidator } from '@hono/zod-validator';
import { z } from 'zod';

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

const ERROR_CODES = {
  400: 'bad_request',
  401: 'unauthorized',
  404: 'not_found',
  500: 'internal_error',
};

function errorBody(status, message) {
  return { code: ERROR_CODES[status] || 'error', message, status };
}

// Validation failures from zod become a 400 Error record.
function onInvalid(result, c) {
  if (!result.success) {
    const message = result.error.issues
      .map((issue) => `${issue.path.join('.') || result.target}: ${issue.message}`)
      .join('; ');
    return c.json(errorBody(400, message), 400);
  }
}

const PetStatus = z.enum(STATUSES);

const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  status: PetStatus.optional(),
});

const NewPet = z.object({
  name: z.string(),
  categoryId: z.number().int(),
  status: PetStatus.optional(),
});

// In-memory store.
const pets = new Map();
let nextId = 1;

const app = new Hono().basePath('/v1');

app.use('*', bearerAuth({ token: API_KEY }));

// listPets
app.get('/pets', zValidator('query', ListQuery, onInvalid), (c) => {
  const { limit, status } = c.req.valid('query');
  let result = [...pets.values()];
  if (status !== undefined) {
    result = result.filter((pet) => pet.status === status);
  }
  return c.json(result.slice(0, limit));
});

// createPet
app.post('/pets', zValidator('json', NewPet, onInvalid), (c) => {
  const { name, categoryId, status } = c.req.valid('json');
  const pet = { id: nextId++, name, categoryId };
  if (status !== undefined) pet.status = status;
  pets.set(pet.id, pet);
  c.header('Location', `/v1/pets/${pet.id}`);
  return c.json(pet, 201);
});

// getPet (deprecated)
app.get('/pets/:petId', (c) => {
  c.header('Sunset', GET_PET_SUNSET);
  const petId = c.req.param('petId');
  const pet = pets.get(Number(petId));
  if (!pet) {
    return c.json(errorBody(404, `pet ${petId} not found`), 404);
  }
  return c.json(pet);
});

// Errors thrown by middleware (authentication, malformed JSON) and handlers.
app.onError((err, c) => {
  if (err instanceof HTTPException) {
    const status = err.status;
    const message = err.message || (status === 401 ? 'missing or invalid API key' : 'bad request');
    return c.json(errorBody(status, message), status);
  }
  console.error(err);
  return c.json(errorBody(500, 'internal server error'), 500);
});

serve({ fetch: app.fetch, port: PORT, hostname: HOST }, (info) => {
  console.log(`pet store (hono) listening on http://${info.address}:${info.port}/v1`);
});
