import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import sharp from 'sharp';
import { bearer, startTestApp, type TestApp } from './support/app.ts';
import { databaseMatrix } from './support/databases.ts';
import { generationFields } from './support/generation-app.ts';

/**
 * The generations API under arbitrary input: whatever a caller sends, the answer is a success or
 * the spec's envelope naming what was wrong, never a 5xx. Workers are not started, so accepted
 * generations only sit in the queue. Seeds are fixed so a failure reproduces; fast-check prints
 * the shrunk counterexample. Both databases: what SQLite stores, Postgres may refuse (U+0000 in
 * text was a 500 there).
 */
const runs = { numRuns: 150, seed: 20261122 };
const topLevelFields = ['mode', 'image', 'products', 'hint', 'imageSize', 'metadata'];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function validBody(photoDataUri: string): Record<string, Json> {
  return {
    mode: 'virtual-try-on',
    image: photoDataUri,
    imageSize: '1K',
    hint: 'casual',
    metadata: { orderRef: 'A-1' },
    products: [
      {
        productId: 'sku-1',
        productTitle: 'Linen shirt',
        imageUrl: 'https://shop.example/sku-1.png',
        productUrl: 'https://shop.example/p/sku-1',
        dimensions: { width: 50, height: 70, unit: 'cm' },
      },
    ],
  };
}

/** Where a mutation may land: every field of a valid body, and one that does not exist. */
const paths: Array<Array<string | number>> = [
  ['mode'],
  ['image'],
  ['imageSize'],
  ['hint'],
  ['metadata'],
  ['metadata', 'orderRef'],
  ['metadata', 'x'.repeat(41)],
  ['products'],
  ['products', 0],
  ['products', 1],
  ['products', 3],
  ['products', 0, 'productId'],
  ['products', 0, 'productTitle'],
  ['products', 0, 'imageUrl'],
  ['products', 0, 'productUrl'],
  ['products', 0, 'dimensions'],
  ['products', 0, 'dimensions', 'width'],
  ['products', 0, 'dimensions', 'unit'],
  ['products', 0, 'extra'],
  ['extra'],
  ['__proto__'],
  ['constructor'],
];

function mutate(
  body: Record<string, Json>,
  mutations: Array<{ path: Array<string | number>; value: Json | undefined }>,
) {
  const copy = structuredClone(body) as Record<string, Json>;
  for (const { path, value } of mutations) {
    let node: any = copy;
    for (const step of path.slice(0, -1)) {
      if (node === null || typeof node !== 'object') break;
      node = node[step];
    }
    if (node === null || typeof node !== 'object') continue;
    const last = path.at(-1)!;
    if (value === undefined) delete node[last];
    // defineProperty, so a `__proto__` key becomes an own property that JSON.stringify sends.
    else Object.defineProperty(node, last, { value, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

const { databases, stop } = databaseMatrix();
after(stop);

for (const [database, environment] of databases) {
  describe(`the generations API under arbitrary input on ${database}`, () => {
    let app: TestApp;
    let key: string;
    let photoDataUri: string;
    const edgeValues: Json[] = [
      '',
      ' ',
      'x'.repeat(501),
      '\u0000',
      '\ud800',
      'https://',
      'http://shop.example/a.png',
      'data:image/png;base64,AAAA',
      'data:,x',
      '1K',
      '4K',
      'room-visualizer',
      0,
      -1,
      1e308,
      [],
      {},
    ];

    before(async () => {
      app = await startTestApp({
        env: await environment(),
        config: { rateLimits: { create: { perSecond: 1e6, burst: 1e6 }, read: { perSecond: 1e6, burst: 1e6 } } },
      });
      key = (await app.tenants.createOrganization({ name: 'Fuzz', credits: 1_000_000 })).apiKey.key;
      const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#c05030' } })
        .png()
        .toBuffer();
      photoDataUri = `data:image/png;base64,${png.toString('base64')}`;
    });
    after(() => app.close());

    const post = (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
      fetch(`${app.url}/v1/generations`, { method: 'POST', headers: { ...bearer(key), ...headers }, body });

    const typeByStatus: Record<number, string> = {
      400: 'invalid_request_error',
      404: 'not_found_error',
      415: 'invalid_request_error',
    };

    async function expectEnvelope(response: Response, statuses: number[]) {
      assert.ok(statuses.includes(response.status), `status ${response.status}, expected one of ${statuses}`);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      const { error } = await response.json();
      assert.equal(error.type, typeByStatus[response.status]);
      assert.equal(typeof error.message, 'string');
      return error as { code: string; param: string | null };
    }

    it('answers any mutation of a valid body with 202 and the whole resource, or 400 naming a field that was sent or is required', async () => {
      const value = fc.oneof(
        fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>,
        fc.constantFrom(...edgeValues),
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.constant(undefined),
      );
      const mutations = fc.array(fc.record({ path: fc.constantFrom(...paths), value }), { minLength: 1, maxLength: 3 });
      await fc.assert(
        fc.asyncProperty(mutations, async (changes) => {
          const body = mutate(validBody(photoDataUri), changes);
          const response = await post(JSON.stringify(body));
          if (response.status === 202) {
            const generation = await response.json();
            assert.deepEqual(Object.keys(generation).sort(), generationFields);
            assert.equal(generation.status, 'processing');
            return;
          }
          const error = await expectEnvelope(response, [400]);
          assert.equal(
            error.code,
            error.code === 'invalid_image' || error.code === 'image_too_large' ? error.code : 'parameter_invalid',
          );
          assert.equal(typeof error.param, 'string');
          const field = error.param!.split(/[.[]/)[0]!;
          assert.ok(
            field in body || topLevelFields.includes(field),
            `param '${error.param}' names neither a sent nor a required field`,
          );
        }),
        runs,
      );
    });

    it('answers any body text under any content type with the envelope', async () => {
      const contentType = fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'APPLICATION/JSON',
      );
      const text = fc.oneof(
        fc.json(),
        fc.string({ unit: 'binary', maxLength: 200 }),
        fc.constantFrom('{', '[', '{"a":1e999999}', '{"__proto__":{"x":1}}', `{"products":${'['.repeat(3000)}`),
      );
      await fc.assert(
        fc.asyncProperty(text, contentType, async (body, type) => {
          const response = await post(body, { 'content-type': type });
          await expectEnvelope(response, [400, 415]);
        }),
        runs,
      );
    });

    it('answers any generation id, list query and idempotency key without a 5xx', async () => {
      const id = fc.string({ unit: 'binary', minLength: 1, maxLength: 80 });
      const query = fc.dictionary(
        fc.constantFrom('limit', 'starting_after', 'status', 'other'),
        fc.string({ unit: 'binary', maxLength: 30 }),
        { maxKeys: 3 },
      );
      // Printable ASCII, what a header can carry; up to 300 characters, past the 255 the API accepts.
      const idempotencyKey = fc.string({
        unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
        maxLength: 300,
      });
      await fc.assert(
        fc.asyncProperty(id, query, idempotencyKey, async (someId, someQuery, someKey) => {
          const one = await fetch(`${app.url}/v1/generations/${encodeURIComponent(someId)}`, { headers: bearer(key) });
          if (one.status !== 200) await expectEnvelope(one, [400, 404]);
          const list = await fetch(`${app.url}/v1/generations?${new URLSearchParams(someQuery)}`, {
            headers: bearer(key),
          });
          if (list.status !== 200) await expectEnvelope(list, [400]);
          const created = await post(JSON.stringify(validBody(photoDataUri)), {
            'content-type': 'application/json',
            'idempotency-key': someKey,
          });
          if (![200, 202].includes(created.status)) await expectEnvelope(created, [400]);
        }),
        { ...runs, numRuns: 60 },
      );
    });
  });
}
