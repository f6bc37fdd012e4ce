// A consumer of the pet store interface, tested with the Pact Foundation's JS library
// against its mock server. Running it writes the consumer contracts to the directory given
// as the first argument, one per version of the Pact specification the library writes: v4
// (PactV4, consumer pact-js-web), v3 (PactV3, pact-js-v3-web) and v2 (PactV2,
// pact-js-v2-web). `make pact-js` puts them in testdata/pact/, where Go tests read and
// verify them against the reference.
import assert from 'node:assert/strict';
import net from 'node:net';
import { PactV2, PactV3, PactV4, MatchersV2, MatchersV3 } from '@pact-foundation/pact';

const { eachLike, fromProviderState, integer, like, regex } = MatchersV3;
const dir = process.argv[2];
if (!dir) {
  console.error('usage: node consumer.mjs DIR');
  process.exit(2);
}

// The key is a placeholder that a verifier replaces with the provider's key; the ids in the
// paths are the ones the provider answers when it sets the state up.
const auth = { Authorization: 'Bearer $PETSTORE_API_KEY' };
const json = { 'Content-Type': 'application/json' };

const pact = new PactV4({ consumer: 'pact-js-web', provider: 'petstore', dir, logLevel: 'warn' });

// The client under test: three calls of the pet store.
const client = (base) => ({
  async available(limit) {
    const r = await fetch(`${base}/v1/pets?status=available&limit=${limit}`, { headers: auth });
    assert.equal(r.status, 200);
    return r.json();
  },
  async add(pet) {
    const r = await fetch(`${base}/v1/pets`, { method: 'POST', headers: { ...auth, ...json }, body: JSON.stringify(pet) });
    assert.equal(r.status, 201);
    return r.json();
  },
  async get(id) {
    const r = await fetch(`${base}/v1/pets/${id}`, { headers: auth });
    return { status: r.status, body: await r.json() };
  },
});

const pet = { id: integer(1), name: like('Rex'), categoryId: integer(1), status: regex('^(available)$', 'available') };

await pact
  .addInteraction()
  .uponReceiving('a list of at most 100 available animals')
  .withRequest('GET', '/v1/pets', (b) => b.query({ status: 'available', limit: '100' }).headers(auth))
  .willRespondWith(200, (b) => b.headers(json).jsonBody(eachLike(pet)))
  .executeTest(async (mock) => {
    const pets = await client(mock.url).available(100);
    assert.ok(pets.every((p) => p.status === 'available'));
  });

await pact
  .addInteraction()
  .uponReceiving('a new animal')
  .withRequest('POST', '/v1/pets', (b) => b.headers({ ...auth, ...json }).jsonBody({ name: 'Rex', categoryId: 7, status: 'pending' }))
  .willRespondWith(201, (b) => b.headers(json).jsonBody({ id: integer(35), name: 'Rex', categoryId: 7, status: 'pending' }))
  .executeTest(async (mock) => {
    const p = await client(mock.url).add({ name: 'Rex', categoryId: 7, status: 'pending' });
    assert.equal(p.name, 'Rex');
  });

await pact
  .addInteraction()
  .given('an animal with the id exists', { id: 35, name: 'Rex', categoryId: 7, status: 'pending' })
  .uponReceiving('the animal 35')
  .withRequest('GET', fromProviderState('/v1/pets/${id}', '/v1/pets/35'), (b) => b.headers(auth))
  .willRespondWith(200, (b) => b.headers(json).jsonBody({ id: integer(35), name: 'Rex', categoryId: 7, status: 'pending' }))
  .executeTest(async (mock) => {
    const { status, body } = await client(mock.url).get(35);
    assert.equal(status, 200);
    assert.equal(body.name, 'Rex');
  });

await pact
  .addInteraction()
  .given('no animal has the id', { id: 999 })
  .uponReceiving('an animal that does not exist')
  .withRequest('GET', fromProviderState('/v1/pets/${id}', '/v1/pets/999'), (b) => b.headers(auth))
  .willRespondWith(404, (b) => b.headers(json).jsonBody({ code: like('not_found'), message: like('no such animal'), status: 404 }))
  .executeTest(async (mock) => {
    const { status, body } = await client(mock.url).get(999);
    assert.equal(status, 404);
    assert.equal(body.status, 404);
  });

// Specification v3: a create, and a get of the animal a provider state sets up.
const v3 = new PactV3({ consumer: 'pact-js-v3-web', provider: 'petstore', dir, logLevel: 'warn' });
v3.uponReceiving('a new sold animal')
  .withRequest({ method: 'POST', path: '/v1/pets', headers: { ...auth, ...json }, body: { name: 'Bella', categoryId: 3, status: 'sold' } })
  .willRespondWith({ status: 201, headers: json, body: { id: integer(10), name: 'Bella', categoryId: 3, status: 'sold' } });
v3.given('an animal with the id exists', { id: 10, name: 'Bella', categoryId: 3, status: 'sold' })
  .uponReceiving('the animal 10')
  .withRequest({ method: 'GET', path: fromProviderState('/v1/pets/${id}', '/v1/pets/10'), headers: auth })
  .willRespondWith({ status: 200, headers: json, body: { id: integer(10), name: 'Bella', categoryId: 3, status: 'sold' } });
await v3.executeTest(async (mock) => {
  const c = client(mock.url);
  assert.equal((await c.add({ name: 'Bella', categoryId: 3, status: 'sold' })).name, 'Bella');
  assert.equal((await c.get(10)).status, 200);
});

// Specification v2: a page of pending animals, and a request without a key.
// PactV2 listens on port 1234 unless told: a free port instead.
const port = await new Promise((resolve) => {
  const srv = net.createServer().listen(0, '127.0.0.1', () => {
    const { port } = srv.address();
    srv.close(() => resolve(port));
  });
});
const v2 = new PactV2({ consumer: 'pact-js-v2-web', provider: 'petstore', dir, spec: 2, port, host: '127.0.0.1', logLevel: 'warn' });
await v2.setup();
const v2base = `http://127.0.0.1:${port}`;
// PactV2 takes one interaction at a time: add it, exercise it, verify it.
await v2.addInteraction({
  state: 'some animals are pending',
  uponReceiving: 'a page of pending animals',
  withRequest: { method: 'GET', path: '/v1/pets', query: { status: 'pending', limit: '5' }, headers: auth },
  willRespondWith: {
    status: 200,
    headers: json,
    body: MatchersV2.eachLike({ id: MatchersV2.like(2), name: MatchersV2.like('Tom'), categoryId: MatchersV2.like(2), status: MatchersV2.term({ generate: 'pending', matcher: '^pending$' }) }),
  },
});
assert.equal((await fetch(`${v2base}/v1/pets?status=pending&limit=5`, { headers: auth })).status, 200);
await v2.verify();
await v2.addInteraction({
  uponReceiving: 'a request without a key',
  withRequest: { method: 'GET', path: '/v1/pets' },
  willRespondWith: { status: 401, headers: json, body: { code: MatchersV2.like('unauthorized'), message: MatchersV2.like('missing key'), status: 401 } },
});
assert.equal((await fetch(`${v2base}/v1/pets`)).status, 401);
await v2.verify();
await v2.finalize();

console.log(`pact-js: the pacts of pact-js-web, pact-js-v3-web and pact-js-v2-web with petstore are in ${dir}`);
