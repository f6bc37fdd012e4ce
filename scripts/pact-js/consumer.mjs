// A consumer of the pet store interface, tested with the Pact Foundation's JS library
// against its mock server. Running it writes the consumer contract (Pact specification v4)
// to the directory given as the first argument: `make pact-js` puts it in testdata/pact/,
// where a Go test reads and verifies it against the reference.
import assert from 'node:assert/strict';
import { PactV4, MatchersV3 } from '@pact-foundation/pact';

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

console.log(`pact-js: the pact of pact-js-web with petstore is in ${dir}`);
