import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { asValue } from 'awilix';
import sharp from 'sharp';
import { startWorkers } from '../core/lifecycle.ts';
import { RenderError, renderErrorCodes, type RenderErrorCode } from '../core/ports/render-engine.ts';
import { maxImageBytes } from '../core/domain/generation-input.ts';
import { renderJobKind } from '../core/services/generations.ts';
import {
  generationFields,
  oddImages,
  startGenerationApp,
  photoJpeg,
  productPng,
  type GenerationApp,
} from './support/generation-app.ts';
import { databaseMatrix, errorOf } from './support/databases.ts';
import { bearer } from './support/app.ts';
import { waitFor } from './support/wait-for.ts';
import { jobsOf } from '../plugins/queue-db/tables.ts';

const { databases, stop } = databaseMatrix();
after(stop);

for (const [database, environment] of databases) {
  describe(`generations on ${database}`, () => {
    let g: GenerationApp;
    let key: string;
    let organizationId: string;
    const balance = async (apiKey = key) => (await (await g.api.get(apiKey, '/v1/credits')).json()).balance as number;

    before(async () => {
      g = await startGenerationApp({ env: await environment() });
      const created = await g.app.tenants.createOrganization({ name: 'Acme', credits: 100 });
      key = created.apiKey.key;
      organizationId = created.organization.id;
    });
    after(() => g.close());

    it('accepts a generation with 202 and every field of the spec, then completes it', async () => {
      const response = await g.api.post(key, g.validBody({ hint: 'casual look', metadata: { orderRef: 'A-1' } }));
      assert.equal(response.status, 202);
      const accepted = await response.json();
      assert.deepEqual(Object.keys(accepted).sort(), generationFields);
      assert.match(accepted.id, /^agen_[0-9A-Za-z]{24}$/);
      assert.equal(accepted.object, 'generation');
      assert.equal(accepted.status, 'processing');
      assert.equal(accepted.imageSize, '1K');
      assert.equal(accepted.imageUrl, null);
      assert.equal(accepted.imageVariants, null);
      assert.equal(accepted.error, null);
      assert.equal(accepted.completedAt, null);
      assert.deepEqual(accepted.metadata, { orderRef: 'A-1' });
      assert.equal(accepted.hint, 'casual look');
      assert.deepEqual(accepted.products, g.validBody().products);
      assert.match(accepted.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

      const done = await g.api.settled(key, accepted.id);
      assert.equal(done.status, 'complete', JSON.stringify(done.error));
      assert.match(done.completedAt, /\.\d{3}Z$/);
      assert.equal(done.error, null);

      const original = await fetch(done.imageUrl);
      assert.equal(original.status, 200);
      const meta = await sharp(Buffer.from(await original.arrayBuffer())).metadata();
      assert.equal(Math.max(meta.width!, meta.height!), 1024, '1K means a long side of 1024 px');

      for (const [name, nominal] of [
        ['list', 200],
        ['card', 600],
        ['detail', 1200],
      ] as const) {
        const variant = done.imageVariants[name];
        const image = await fetch(variant.url);
        assert.equal(image.status, 200);
        assert.equal(image.headers.get('content-type'), 'image/jpeg');
        assert.equal(image.headers.get('cache-control'), 'public, max-age=31536000, immutable');
        const etag = image.headers.get('etag');
        assert.ok(etag);
        const info = await sharp(Buffer.from(await image.arrayBuffer())).metadata();
        assert.equal(info.width, Math.min(nominal, 819), 'never upscaled beyond the 819 px render');
        assert.equal((await fetch(variant.url, { headers: { 'if-none-match': etag! } })).status, 304);
        // If-None-Match as caches send it: a list, weak tags (compared weakly), or `*`.
        for (const header of [`W/"other", ${etag}`, `W/${etag}`, '*']) {
          assert.equal((await fetch(variant.url, { headers: { 'if-none-match': header } })).status, 304, header);
        }
        assert.equal((await fetch(variant.url, { headers: { 'if-none-match': '"other"' } })).status, 200);
        // HEAD, as CDNs and link checkers ask: the GET's headers, no body.
        const head = await fetch(variant.url, { method: 'HEAD' });
        assert.equal(head.status, 200);
        assert.equal(head.headers.get('etag'), etag);
        assert.equal(head.headers.get('content-type'), 'image/jpeg');
        assert.equal(Number(head.headers.get('content-length')), Number(image.headers.get('content-length')));
        assert.equal((await head.arrayBuffer()).byteLength, 0);
        const webp = await fetch(variant.url.replace(/\.jpg$/, '.webp'));
        assert.equal(webp.headers.get('content-type'), 'image/webp', 'the WebP twin sits at the same path');
      }
      assert.match(
        done.imageUrl,
        /\/cdn\/gen\/agen_\w+\/[0-9A-Za-z]{24}\/original\.jpg$/,
        'URLs carry an unguessable token',
      );
    });

    it('writes the completion event to the outbox with the generation exactly as GET returns it', async () => {
      const { id } = await (await g.api.post(key, g.validBody())).json();
      const done = await g.api.settled(key, id);
      const events = await g.app.container.cradle.persistence.events.list(organizationId, { limit: 50 });
      const event = events.find((item) => JSON.parse(item.body).data.id === id)!;
      assert.equal(event.type, 'generation.completed');
      const body = JSON.parse(event.body);
      assert.match(body.id, /^evt_[0-9A-Za-z]{24}$/);
      assert.match(body.createdAt, /\.\d{3}Z$/);
      assert.deepEqual(body.data, done);
    });

    it("reports each variant's maximum width, 200/600/1200, though a 1K portrait's detail image is 819 px wide", async () => {
      const { id } = await (await g.api.post(key, g.validBody())).json();
      const done = await g.api.settled(key, id);
      assert.equal(done.status, 'complete', JSON.stringify(done.error));
      const reported = {
        list: done.imageVariants.list.width,
        card: done.imageVariants.card.width,
        detail: done.imageVariants.detail.width,
      };
      assert.deepEqual(reported, { list: 200, card: 600, detail: 1200 }, 'the spec: width is the maximum width');
      const pixels = async (url: string) =>
        (await sharp(Buffer.from(await (await fetch(url)).arrayBuffer())).metadata()).width;
      assert.equal(await pixels(done.imageUrl), 819, 'a 1K portrait render');
      assert.equal(await pixels(done.imageVariants.detail.url), 819, 'the detail image is not upscaled');
      assert.equal(await pixels(done.imageVariants.detail.url.replace(/\.jpg$/, '.webp')), 819);
      // Webhook deliveries carry the same resource.
      const events = await g.app.container.cradle.persistence.events.list(organizationId, { limit: 50 });
      const event = events.find((item) => JSON.parse(item.body).data.id === id)!;
      assert.deepEqual(JSON.parse(event.body).data.imageVariants, done.imageVariants);
    });

    it('takes an uploaded photo as a data URI and keeps it private', async () => {
      const image = `data:image/jpeg;base64,${photoJpeg.toString('base64')}`;
      const { id } = await (
        await g.api.post(
          key,
          g.validBody({
            image,
            mode: 'room-visualizer',
            products: [
              {
                productId: 7,
                productTitle: 'Sofa',
                imageUrl: `${g.host.url}/product.png`,
                dimensions: { width: 200, depth: 90, unit: 'cm' },
              },
            ],
          }),
        )
      ).json();
      const done = await g.api.settled(key, id);
      assert.equal(done.status, 'complete', JSON.stringify(done.error));
      const uploads = path.join(g.app.container.cradle.config.dataDir, 'cdn', 'private', 'uploads');
      // Its folder goes with it: a delete removes the folders it empties. A folder deleted while the
      // walk reads it counts as something left, so the wait goes on.
      const left = () => {
        if (!existsSync(uploads)) return [];
        try {
          return readdirSync(uploads, { recursive: true });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ['(being deleted)'];
          throw error;
        }
      };
      // The upload is deleted just after the transaction that completes the generation.
      await waitFor('the upload to be deleted once the generation is done', () => left().length === 0);
      assert.deepEqual(left(), []);
      assert.equal((await fetch(`${g.app.url}/cdn/../private/uploads/${id}/x.jpg`)).status, 404);
    });

    it('answers 503 storage_unavailable, charging nothing, when an uploaded photo cannot be stored', async () => {
      const { cdn } = g.app.container.cradle;
      const put = cdn.put;
      cdn.put = async () => {
        throw new Error('ENOSPC: no space left on device');
      };
      const before = await balance();
      try {
        const image = `data:image/jpeg;base64,${photoJpeg.toString('base64')}`;
        const response = await g.api.post(key, g.validBody({ image }), { 'idempotency-key': 'storage-down' });
        const error = await errorOf(response, 503);
        assert.deepEqual([error.type, error.code], ['api_error', 'storage_unavailable']);
        assert.equal(response.headers.get('retry-after'), '1');
      } finally {
        cdn.put = put;
      }
      assert.equal(await balance(), before, 'nothing was charged');
      const retried = await g.api.post(
        key,
        g.validBody({ image: `data:image/jpeg;base64,${photoJpeg.toString('base64')}` }),
        { 'idempotency-key': 'storage-down' },
      );
      assert.equal(retried.status, 202, 'the key was not bound by the refused create');
    });

    it('reads product images on its own CDN from storage', async () => {
      const { cdn } = g.app.container.cradle;
      const stored = await cdn.put('catalog/shirt.png', productPng, { contentType: 'image/png', visibility: 'public' });
      assert.ok(stored.url!.startsWith('http://'), 'served over plain http here, so it could not be fetched');
      const { id } = await (
        await g.api.post(key, g.validBody({ products: [{ productId: 3, productTitle: 'Own', imageUrl: stored.url }] }))
      ).json();
      assert.equal((await g.api.settled(key, id)).status, 'complete');
      const missing = await (
        await g.api.post(
          key,
          g.validBody({
            products: [{ productId: 3, productTitle: 'Gone', imageUrl: cdn.publicUrl('catalog/none.png') }],
          }),
        )
      ).json();
      const failed = (await g.api.settled(key, missing.id)).error;
      assert.equal(failed.code, 'image_fetch_failed');
      assert.equal(failed.message, 'products[0].imageUrl: No image at this CDN path: /cdn/catalog/none.png');
    });

    it('refuses what the spec forbids, naming the field', async () => {
      const product = g.validBody().products[0]!;
      const cases: Array<[unknown, string, string?]> = [
        [{ ...g.validBody(), mode: 'x-ray' }, 'mode'],
        [{ ...g.validBody(), mode: undefined }, 'mode'],
        [{ ...g.validBody(), image: 'http://example.com/a.jpg' }, 'image'],
        [{ ...g.validBody(), image: 'data:text/plain;base64,aGVsbG8=' }, 'image'],
        [{ ...g.validBody(), image: 'data:image/png;base64,aGVsbG8=' }, 'image', 'invalid_image'],
        [
          { ...g.validBody(), image: `data:image/heic;base64,${oddImages.heic.toString('base64')}` },
          'image',
          'invalid_image',
        ],
        [{ ...g.validBody(), image: `data:image/png;base64,${'A'.repeat(14_000_000)}` }, 'image'],
        [{ ...g.validBody(), products: [] }, 'products'],
        [{ ...g.validBody(), products: [product, product, product, product] }, 'products'],
        [{ ...g.validBody(), products: [product, { ...product, imageUrl: 'not a url' }] }, 'products[1].imageUrl'],
        [{ ...g.validBody(), products: [{ ...product, productTitle: ' ' }] }, 'products[0].productTitle'],
        [{ ...g.validBody(), products: [{ ...product, productId: { id: 1 } }] }, 'products[0].productId'],
        [{ ...g.validBody(), products: [{ ...product, productUrl: 'ftp://x' }] }, 'products[0].productUrl'],
        [
          { ...g.validBody(), products: [{ ...product, imageUrl: 'http://example.com/p.png' }] },
          'products[0].imageUrl',
        ],
        [
          { ...g.validBody(), products: [{ ...product, dimensions: { width: 10, unit: 'furlong' } }] },
          'products[0].dimensions.unit',
        ],
        [{ ...g.validBody(), products: [{ ...product, dimensions: {} }] }, 'products[0].dimensions'],
        [{ ...g.validBody(), hint: 'x'.repeat(501) }, 'hint'],
        [{ ...g.validBody(), imageSize: '8K' }, 'imageSize'],
        [
          { ...g.validBody(), metadata: Object.fromEntries(Array.from({ length: 41 }, (_, i) => [`k${i}`, 'v'])) },
          'metadata',
        ],
        [{ ...g.validBody(), metadata: { count: 3 } }, 'metadata.count'],
        [{ ...g.validBody(), colour: 'red' }, 'colour'],
      ];
      const before = await balance();
      for (const [body, param, code] of cases) {
        const error = await errorOf(await g.api.post(key, body), 400);
        assert.equal(error.type, 'invalid_request_error');
        assert.equal(error.param, param, `${JSON.stringify(body).slice(0, 120)} → ${error.message}`);
        if (code) assert.equal(error.code, code);
      }
      assert.equal(await balance(), before, 'nothing refused was charged');
      const { products: _omitted, ...withoutProducts } = g.validBody();
      assert.equal((await errorOf(await g.api.post(key, withoutProducts), 400)).message, 'products: is required');
      assert.equal((await errorOf(await g.api.post(key, '{"mode":'), 400)).code, 'invalid_json');
      assert.equal(
        (
          await errorOf(
            await fetch(`${g.app.url}/v1/generations`, {
              method: 'POST',
              headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' },
              body: '{}',
            }),
            415,
          )
        ).type,
        'invalid_request_error',
      );
      assert.equal(
        (await errorOf(await g.api.post(key, JSON.stringify({ image: 'x'.repeat(15 * 1024 * 1024) })), 413)).code,
        'body_too_large',
      );
    });

    it('is idempotent per the four rules, and per organization', async () => {
      const first = await g.api.post(key, g.validBody(), { 'idempotency-key': 'order-1' });
      assert.equal(first.status, 202);
      const original = await first.json();
      const repeat = await g.api.post(key, g.validBody(), { 'idempotency-key': 'order-1' });
      assert.equal(repeat.status, 200);
      assert.equal((await repeat.json()).id, original.id);
      const different = await g.api.post(key, g.validBody({ imageSize: '4K', hint: 'other' }), {
        'idempotency-key': 'order-1',
      });
      assert.equal(different.status, 200);
      const replayed = await different.json();
      assert.equal(replayed.id, original.id);
      assert.equal(replayed.imageSize, '1K', 'the new body is ignored');

      await g.api.settled(key, original.id);
      const later = await (await g.api.post(key, g.validBody(), { 'idempotency-key': 'order-1' })).json();
      assert.equal(later.id, original.id, 'a key once bound always returns its generation');
      assert.equal(later.status, 'complete');

      const other = await g.app.tenants.createOrganization({ name: 'Other', credits: 5 });
      const theirs = await g.api.post(other.apiKey.key, g.validBody(), { 'idempotency-key': 'order-1' });
      assert.equal(theirs.status, 202, 'keys are scoped to the organization');
      assert.notEqual((await theirs.json()).id, original.id);

      const tooLong = await errorOf(await g.api.post(key, g.validBody(), { 'idempotency-key': 'k'.repeat(256) }), 400);
      assert.equal(tooLong.param, 'Idempotency-Key');
    });

    // Requests at the edges of the rules, on an organization of their own: the generations they make
    // fail or complete in the background, which must not move the balance other tests check.
    let edgeKey: string;
    before(async () => {
      edgeKey = (await g.app.tenants.createOrganization({ name: 'Edges', credits: 100 })).apiKey.key;
    });

    it('returns the generation of a bound Idempotency-Key whatever comes with it: an invalid body, one that is not JSON, or not sent as JSON', async () => {
      const first = await g.api.post(edgeKey, g.validBody(), { 'idempotency-key': 'bound-k' });
      assert.equal(first.status, 202);
      const { id } = await first.json();
      const before = await balance(edgeKey);
      const resent = [
        await g.api.post(edgeKey, {}, { 'idempotency-key': 'bound-k' }),
        await g.api.post(edgeKey, 'not json', { 'idempotency-key': 'bound-k' }),
        await fetch(`${g.app.url}/v1/generations`, {
          method: 'POST',
          headers: { ...bearer(edgeKey), 'content-type': 'text/plain', 'idempotency-key': 'bound-k' },
          body: JSON.stringify(g.validBody()),
        }),
      ];
      for (const response of resent) {
        const text = await response.text();
        assert.equal(response.status, 200, text);
        assert.equal(response.headers.get('idempotent-replayed'), 'true');
        assert.equal(JSON.parse(text).id, id);
      }
      assert.equal(await balance(edgeKey), before, 'nothing more was charged');
      // The key is checked and the caller authenticated before anything else.
      assert.equal(
        (await errorOf(await g.api.post(edgeKey, {}, { 'idempotency-key': 'bound k' }), 400)).param,
        'Idempotency-Key',
      );
      assert.equal(
        (
          await errorOf(
            await fetch(`${g.app.url}/v1/generations`, {
              method: 'POST',
              headers: { 'idempotency-key': 'bound-k' },
              body: '{}',
            }),
            401,
          )
        ).type,
        'authentication_error',
      );
    });

    it('answers the winner’s generation to a request that lost its key’s race, even when the winner took the last credit', async () => {
      const { apiKey } = await g.app.tenants.createOrganization({ name: 'Last credit', credits: 1 });
      const responses = await Promise.all(
        Array.from({ length: 10 }, () => g.api.post(apiKey.key, g.validBody(), { 'idempotency-key': 'last-credit' })),
      );
      const bodies = await Promise.all(responses.map((response) => response.json()));
      assert.deepEqual(
        responses.map((response) => response.status).sort(),
        [...Array(9).fill(200), 202],
        JSON.stringify(bodies.find((body) => body.error)),
      );
      assert.equal(new Set(bodies.map((body) => body.id)).size, 1);
      assert.equal(await balance(apiKey.key), 0);
    });

    it('refuses text the database cannot store (U+0000, a lone surrogate) anywhere in the body, naming the field', async () => {
      const product = g.validBody().products[0]!;
      const cases: Array<[string, string]> = [
        [JSON.stringify(g.validBody({ hint: 'a\u0000b' })), 'hint'],
        [JSON.stringify(g.validBody({ hint: '\ud800x' })), 'hint'],
        [JSON.stringify(g.validBody({ hint: 'x\udc00' })), 'hint'],
        [
          JSON.stringify(g.validBody({ products: [product, { ...product, productTitle: 'Shirt\ud83d' }] })),
          'products[1].productTitle',
        ],
        [JSON.stringify(g.validBody({ products: [{ ...product, productId: 'sku\u0000' }] })), 'products[0].productId'],
        [JSON.stringify(g.validBody({ metadata: { ok: 'v\u0000' } })), 'metadata.ok'],
        // A key is named with its offending character written as an escape, so `param` stays printable.
        [JSON.stringify(g.validBody({ metadata: { 'k\u0000': 'v' } })), 'metadata.k\\u0000'],
        [JSON.stringify(g.validBody({ metadata: { '\ud800': 'v' } })), 'metadata.\\ud800'],
        // Even in a field the schema would refuse anyway.
        [JSON.stringify({ ...g.validBody(), colour: ['red', '\u0000'] }), 'colour[1]'],
      ];
      const before = await balance(edgeKey);
      for (const [body, param] of cases) {
        const error = await errorOf(await g.api.post(edgeKey, body), 400);
        assert.deepEqual(
          [error.type, error.code, error.param],
          ['invalid_request_error', 'parameter_invalid', param],
          error.message,
        );
        assert.match(error.message, /U\+0000|surrogate/);
      }
      assert.equal(await balance(edgeKey), before, 'nothing refused was charged');
      // Escapes as such are fine: a body written all in \u escapes (Python's json.dumps) with an emoji as a surrogate pair.
      const escaped = JSON.stringify(g.validBody({ hint: 'caf\u00e9 \ud83d\ude00' })).replace(
        /[^\x20-\x7e]/g,
        (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
      );
      assert.match(escaped, /\\ud83d\\ude00/);
      const accepted = await g.api.post(edgeKey, escaped);
      assert.equal(accepted.status, 202);
      const { id } = await accepted.json();
      assert.equal(
        (await (await g.api.get(edgeKey, `/v1/generations/${id}`)).json()).hint,
        'café 😀',
        'stored and read back unchanged',
      );
    });

    it('answers ids and cursors that cannot be ids (U+0000, too long) with 404 and 400 without asking the database', async () => {
      for (const id of ['abc%00', `agen_${'x'.repeat(60)}`]) {
        const error = await errorOf(await g.api.get(edgeKey, `/v1/generations/${id}`), 404);
        assert.deepEqual([error.type, error.code], ['not_found_error', 'resource_missing'], id);
      }
      for (const cursor of ['abc%00', `agen_${'x'.repeat(60)}`, '']) {
        const error = await errorOf(await g.api.get(edgeKey, `/v1/generations?starting_after=${cursor}`), 400);
        assert.equal(error.param, 'starting_after', cursor);
      }
    });

    it('keeps metadata keys named like object internals as ordinary keys, and refuses an array', async () => {
      const body = `{"mode":"virtual-try-on","image":"https://shop.example/photo.jpg","products":${JSON.stringify(g.validBody().products)},"metadata":{"constructor":"c","prototype":"p","__proto__":"x","ok":"z"}}`;
      const response = await g.api.post(edgeKey, body);
      assert.equal(response.status, 202);
      const { id, metadata } = await response.json();
      const expected = JSON.parse('{"constructor":"c","prototype":"p","__proto__":"x","ok":"z"}');
      assert.deepEqual(metadata, expected);
      assert.deepEqual(
        (await (await g.api.get(edgeKey, `/v1/generations/${id}`)).json()).metadata,
        expected,
        'stored and read back',
      );
      const cases: Array<[string, string]> = [
        [JSON.stringify(g.validBody({ metadata: ['a', 'b'] })), 'metadata'],
        [JSON.stringify(g.validBody({ metadata: { constructor: 5 } })), 'metadata.constructor'],
        [body.replace('"__proto__":"x"', '"__proto__":{"polluted":"yes"}'), 'metadata.__proto__'],
        [body.replace('"prototype":"p"', `"prototype":"${'p'.repeat(501)}"`), 'metadata.prototype'],
        // 40 pairs with the three, then one more.
        [body.replace('"ok":"z"', Array.from({ length: 37 }, (_, i) => `"k${i}":"v"`).join(',')), ''],
        [body.replace('"ok":"z"', Array.from({ length: 38 }, (_, i) => `"k${i}":"v"`).join(',')), 'metadata'],
      ];
      for (const [text, param] of cases) {
        const answer = await g.api.post(edgeKey, text);
        if (param === '') assert.equal(answer.status, 202, 'exactly 40 pairs');
        else assert.equal((await errorOf(answer, 400)).param, param, text.slice(-120));
      }
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    });

    it('counts lengths in characters, so an emoji is one', async () => {
      const emoji = '😀';
      const product = g.validBody().products[0]!;
      const within = {
        hint: emoji.repeat(500),
        products: [{ ...product, productId: emoji.repeat(200), productTitle: emoji.repeat(500) }],
        metadata: { [emoji.repeat(40)]: emoji.repeat(500) },
      };
      const accepted = await g.api.post(edgeKey, g.validBody(within));
      assert.equal(accepted.status, 202, await accepted.clone().text());
      const generation = await accepted.json();
      assert.deepEqual(
        [generation.hint, generation.products, generation.metadata],
        [within.hint, within.products, within.metadata],
      );
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ hint: emoji.repeat(501) }, 'hint'],
        [{ products: [{ ...product, productId: emoji.repeat(201) }] }, 'products[0].productId'],
        [{ products: [{ ...product, productTitle: emoji.repeat(501) }] }, 'products[0].productTitle'],
        [{ metadata: { [emoji.repeat(41)]: 'v' } }, `metadata.${emoji.repeat(41)}`],
        [{ metadata: { k: emoji.repeat(501) } }, 'metadata.k'],
      ];
      for (const [overrides, param] of cases) {
        const error = await errorOf(await g.api.post(edgeKey, g.validBody(overrides)), 400);
        assert.equal(error.param, param);
        assert.match(error.message, /at most \d+ characters/);
      }
    });

    it('refuses a numeric productId that is not a safe integer, which JSON numbers would silently change', async () => {
      const body = (productId: string) =>
        `{"mode":"virtual-try-on","image":"https://shop.example/photo.jpg","products":[{"productId":${productId},"productTitle":"T","imageUrl":"https://shop.example/p.png"}]}`;
      for (const productId of ['12345678901234567890', '9007199254740992', '-9007199254740992', '1e300']) {
        const error = await errorOf(await g.api.post(edgeKey, body(productId)), 400);
        assert.equal(error.param, 'products[0].productId');
        assert.match(error.message, /as a string/);
      }
      for (const productId of ['9007199254740991', '-9007199254740991', '7', '12.5']) {
        const response = await g.api.post(edgeKey, body(productId));
        assert.equal(response.status, 202, productId);
        assert.equal((await response.json()).products[0].productId, Number(productId));
      }
    });

    it('refuses a photo over 10 MB with image_too_large, however far over', async () => {
      for (const bytes of [maxImageBytes + 1, maxImageBytes + 100, maxImageBytes + 300_000]) {
        const image = `data:image/png;base64,${Buffer.alloc(bytes, 1).toString('base64')}`;
        const error = await errorOf(await g.api.post(edgeKey, g.validBody({ image })), 400);
        assert.deepEqual([error.code, error.param], ['image_too_large', 'image'], `${bytes} bytes: ${error.message}`);
      }
    });

    it('creates one generation and charges once for 20 simultaneous requests with one key', async () => {
      const before = await balance();
      const responses = await Promise.all(
        Array.from({ length: 20 }, () =>
          g.api.post(key, g.validBody({ imageSize: '2K' }), { 'idempotency-key': `burst-${database}` }),
        ),
      );
      const statuses = responses.map((response) => response.status).sort();
      assert.deepEqual(statuses, [...Array(19).fill(200), 202], 'one created, nineteen replayed');
      const ids = new Set(await Promise.all(responses.map(async (response) => (await response.json()).id)));
      assert.equal(ids.size, 1);
      assert.equal(await balance(), before - 2, 'a 2K generation is charged once');
    });

    it('charges 1, 2 and 3 credits for 1K, 2K and 4K, and refuses what the balance cannot cover', async () => {
      const poor = await g.app.tenants.createOrganization({ name: 'Poor', credits: 6 });
      const poorKey = poor.apiKey.key;
      for (const [size, after] of [
        ['1K', 5],
        ['2K', 3],
        ['4K', 0],
      ] as const) {
        assert.equal((await g.api.post(poorKey, g.validBody({ imageSize: size }))).status, 202);
        assert.equal(await balance(poorKey), after);
      }
      const refused = await errorOf(await g.api.post(poorKey, g.validBody()), 403);
      assert.equal(refused.type, 'authorization_error');
      assert.equal(refused.code, 'insufficient_credits');
      const list = await (await g.api.get(poorKey, '/v1/generations?limit=100')).json();
      assert.equal(list.data.length, 3, 'nothing was created');
      const credits = await (await g.api.get(poorKey, '/v1/credits')).json();
      assert.equal(credits.object, 'credit_balance');
      const ledger = await (await g.api.get(poorKey, '/v1/credits/ledger')).json();
      assert.deepEqual(
        ledger.data.map((entry: { delta: number }) => entry.delta),
        [-3, -2, -1, 6],
      );
    });

    it('fails a generation whose image cannot be used, with a clear error, and refunds it', async () => {
      const before = await balance();
      const cases: Array<[Record<string, unknown>, string, RegExp]> = [
        [{ image: `${g.host.url}/missing` }, 'image_fetch_failed', /404/],
        [{ image: `${g.host.url}/not-an-image` }, 'invalid_image', /not .*image|image/i],
        [{ image: `${g.host.url}/down` }, 'image_fetch_failed', /503/],
        [
          { image: `${g.host.url.replace('localhost', '127.0.0.1')}/photo.jpg` },
          'image_fetch_failed',
          /private address/,
        ],
        [
          { products: [{ productId: 1, productTitle: 'Gone', imageUrl: `${g.host.url}/missing` }] },
          'image_fetch_failed',
          /products\[0\]\.imageUrl/,
        ],
        [{ image: `${g.host.url}/truncated.jpg` }, 'invalid_image', /^The image is damaged or truncated/],
        [
          { image: `data:image/jpeg;base64,${oddImages.truncated.toString('base64')}` },
          'invalid_image',
          /^The image is damaged or truncated/,
        ],
        [{ image: `${g.host.url}/photo.heic` }, 'invalid_image', /^HEIC images .* are not supported/],
        [
          { products: [{ productId: 1, productTitle: 'Cut', imageUrl: `${g.host.url}/truncated.jpg` }] },
          'invalid_image',
          /^products\[0\]\.imageUrl: The image is damaged or truncated/,
        ],
      ];
      for (const [overrides, code, message] of cases) {
        const { id } = await (await g.api.post(key, g.validBody(overrides))).json();
        const failed = await g.api.settled(key, id);
        assert.equal(failed.status, 'failed');
        assert.equal(failed.error.code, code, JSON.stringify(failed.error));
        assert.match(failed.error.message, message);
        assert.equal(failed.imageUrl, null);
        assert.equal(failed.imageVariants, null);
        assert.match(failed.completedAt, /Z$/);
      }
      assert.equal(await balance(), before, 'every failed generation was refunded');
      const { data: ledger } = await (await g.api.get(key, '/v1/credits/ledger?limit=100')).json();
      assert.ok(ledger.some((entry: { reason: string }) => entry.reason === 'generation_refund'));
      const events = await g.app.container.cradle.persistence.events.list(organizationId, { limit: 100 });
      assert.ok(
        events.some(
          (event) =>
            event.type === 'generation.failed' && JSON.parse(event.body).data.error.code === 'image_fetch_failed',
        ),
      );
    });

    it('completes a photo with damaged data that still decodes, as browsers show it', async () => {
      const { id } = await (await g.api.post(key, g.validBody({ image: `${g.host.url}/damaged.jpg` }))).json();
      const done = await g.api.settled(key, id);
      assert.equal(done.status, 'complete', JSON.stringify(done.error));
      const detail = await sharp(
        Buffer.from(await (await fetch(done.imageVariants.detail.url)).arrayBuffer()),
      ).metadata();
      assert.equal(detail.width, 819, 'upright: a 1K portrait render is 819 px wide');
    });

    it('fails at once on an image no retry can mend, even when another image failed transiently first', async () => {
      const before = g.host.requests.filter((request) => request.path === '/late-missing').length;
      const { id } = await (
        await g.api.post(
          key,
          g.validBody({
            image: `${g.host.url}/late-missing`,
            products: [{ productId: 1, productTitle: 'Down', imageUrl: `${g.host.url}/down` }],
          }),
        )
      ).json();
      const failed = await g.api.settled(key, id);
      assert.equal(failed.error.code, 'image_fetch_failed');
      assert.equal(failed.error.message, 'The image URL answered 404', "the photo's 404, not the product host's 503");
      assert.equal(
        g.host.requests.filter((request) => request.path === '/late-missing').length - before,
        1,
        'no retry was spent',
      );
    });

    it('retries a transient failure before succeeding', async () => {
      const { id } = await (
        await g.api.post(
          key,
          g.validBody({
            products: [{ productId: 1, productTitle: 'Flaky', imageUrl: `${g.host.url}/flaky/${database}` }],
          }),
        )
      ).json();
      const done = await g.api.settled(key, id);
      assert.equal(done.status, 'complete', JSON.stringify(done.error));
      assert.equal(g.host.requests.filter((request) => request.path === `/flaky/${database}`).length, 3);
    });

    it('reads only the caller’s generations, and lists them newest first with cursors and a status filter', async () => {
      const fresh = await g.app.tenants.createOrganization({ name: 'Lister', credits: 20 });
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await (await g.api.post(fresh.apiKey.key, g.validBody())).json()).id);
      const failing = (
        await (await g.api.post(fresh.apiKey.key, g.validBody({ image: `${g.host.url}/missing` }))).json()
      ).id;
      await g.api.settled(fresh.apiKey.key, failing);

      const page1 = await (await g.api.get(fresh.apiKey.key, '/v1/generations?limit=4')).json();
      assert.equal(page1.object, 'list');
      assert.equal(page1.has_more, true);
      const page2 = await (
        await g.api.get(fresh.apiKey.key, `/v1/generations?limit=4&starting_after=${page1.data.at(-1).id}`)
      ).json();
      assert.equal(page2.has_more, false);
      const listed = [...page1.data, ...page2.data].map((item: { id: string }) => item.id);
      assert.deepEqual(new Set(listed), new Set([...ids, failing]));
      assert.equal(listed.length, 6);
      const failed = await (await g.api.get(fresh.apiKey.key, '/v1/generations?status=failed')).json();
      assert.deepEqual(
        failed.data.map((item: { id: string }) => item.id),
        [failing],
      );
      assert.equal((await errorOf(await g.api.get(fresh.apiKey.key, '/v1/generations?limit=500'), 400)).param, 'limit');
      assert.equal(
        (await errorOf(await g.api.get(fresh.apiKey.key, '/v1/generations?status=done'), 400)).param,
        'status',
      );

      const notMine = await errorOf(await g.api.get(key, `/v1/generations/${ids[0]}`), 404);
      assert.equal(notMine.type, 'not_found_error');
      assert.equal(
        (await errorOf(await g.api.get(key, '/v1/generations/agen_doesnotexist'), 404)).type,
        'not_found_error',
      );
      assert.equal(
        (await errorOf(await fetch(`${g.app.url}/v1/generations/${ids[0]}`), 401)).type,
        'authentication_error',
      );
    });
  });
}

describe('rate limit', () => {
  let g: GenerationApp;
  before(async () => {
    g = await startGenerationApp({ workers: false, config: { rateLimits: { create: { perSecond: 0.5, burst: 2 } } } });
  });
  after(() => g.close());

  it('answers 429 with Retry-After once a key exceeds its budget, per key', async () => {
    const { apiKey, organization } = await g.app.tenants.createOrganization({ name: 'Busy', credits: 10 });
    assert.equal((await g.api.post(apiKey.key, g.validBody())).status, 202);
    assert.equal((await g.api.post(apiKey.key, g.validBody())).status, 202);
    const limited = await g.api.post(apiKey.key, g.validBody());
    const error = await errorOf(limited, 429);
    assert.equal(error.type, 'rate_limit_error');
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    const second = await g.app.tenants.createKey(organization.id, 'secret');
    assert.equal((await g.api.post(second.key, g.validBody())).status, 202, 'another key has its own budget');
  });
});

describe('render engine failures', () => {
  let g: GenerationApp;
  const outcomes: Array<() => never | Promise<never>> = [];
  let calls = 0;
  before(async () => {
    g = await startGenerationApp({ workers: false });
    // A stand-in engine whose failures the test scripts, registered before the workers start.
    g.app.container.register({
      renderer: asValue({
        name: 'scripted',
        render: async () => {
          calls += 1;
          return outcomes.shift()!();
        },
      }),
    });
    await startWorkers(g.app.container.cradle);
  });
  after(() => g.close());

  it('fails on blocked content with the engine’s reason, and refunds', async () => {
    const { apiKey } = await g.app.tenants.createOrganization({ name: 'Blocked', credits: 3 });
    outcomes.push(() => {
      throw new RenderError('content_blocked', 'The image was blocked by safety filters.', false);
    });
    const { id } = await (await g.api.post(apiKey.key, g.validBody())).json();
    const failed = await g.api.settled(apiKey.key, id);
    assert.deepEqual(failed.error, { code: 'content_blocked', message: 'The image was blocked by safety filters.' });
    assert.equal((await (await g.api.get(apiKey.key, '/v1/credits')).json()).balance, 3);
  });

  it("reports a code outside the engines' vocabulary as render_failed, its message kept in the log", async () => {
    const { apiKey } = await g.app.tenants.createOrganization({ name: 'Own code', credits: 3 });
    outcomes.push(() => {
      // A third party's adapter typed loosely: the code reaches the core all the same.
      throw new RenderError('my_vendor_code' as RenderErrorCode, 'VendorX says: account 991 over plan', false);
    });
    const { id } = await (await g.api.post(apiKey.key, g.validBody())).json();
    const failed = await g.api.settled(apiKey.key, id);
    assert.deepEqual(failed.error, { code: 'render_failed', message: renderErrorCodes.render_failed.publicMessage });
    assert.equal((await (await g.api.get(apiKey.key, '/v1/credits')).json()).balance, 3);
  });

  it("shows photo_unusable with the engine's reason, final", async () => {
    const { apiKey } = await g.app.tenants.createOrganization({ name: 'Unusable', credits: 3 });
    calls = 0;
    outcomes.push(() => {
      throw new RenderError('photo_unusable', 'No person was found in the photo.');
    });
    const { id } = await (await g.api.post(apiKey.key, g.validBody())).json();
    const failed = await g.api.settled(apiKey.key, id);
    assert.equal(calls, 1, 'final: not retried');
    assert.deepEqual(failed.error, { code: 'photo_unusable', message: 'No person was found in the photo.' });
  });

  it('retries an unavailable engine up to the attempt limit, then fails without leaking its words', async () => {
    const { apiKey } = await g.app.tenants.createOrganization({ name: 'Down', credits: 3 });
    calls = 0;
    for (let i = 0; i < 3; i++) {
      outcomes.push(() => {
        throw new RenderError('renderer_unavailable', 'Gemini answered 503: quota project 1234 exhausted', true);
      });
    }
    const { id } = await (await g.api.post(apiKey.key, g.validBody())).json();
    const failed = await g.api.settled(apiKey.key, id);
    assert.equal(calls, 3, 'render.maxAttempts is 3 in these tests');
    assert.equal(failed.error.code, 'renderer_unavailable');
    assert.doesNotMatch(failed.error.message, /Gemini|quota|1234/);
  });
});

describe('two runs of one render job (a lease that expired while the first was still working)', () => {
  let g: GenerationApp;
  before(async () => {
    g = await startGenerationApp({ workers: false });
  });
  after(() => g.close());

  it('completes once, emits one event, and keeps only the images of the run that won', async () => {
    const { apiKey, organization } = await g.app.tenants.createOrganization({ name: 'Twice', credits: 3 });
    const { id } = await (await g.api.post(apiKey.key, g.validBody())).json();
    const { renderGeneration, cdn, persistence } = g.app.container.cradle;
    const job = {
      id: 'job_twice',
      kind: 'render',
      payload: { generationId: id, organizationId: organization.id },
      attempts: 1,
      failures: 0,
    };
    await Promise.all([renderGeneration(job), renderGeneration(job)]);

    const done = await (await g.api.get(apiKey.key, `/v1/generations/${id}`)).json();
    assert.equal(done.status, 'complete');
    const events = (await persistence.events.list(organization.id, { limit: 10 })).filter((event) =>
      event.body.includes(id),
    );
    assert.equal(events.length, 1, 'one generation.completed event');
    const stored: string[] = [];
    for await (const object of cdn.list(`gen/${id}/`, 'public')) stored.push(object.key);
    const winner = new URL(done.imageUrl).pathname.replace('/cdn/', '').replace(/\/original\.\w+$/, '/');
    assert.equal(stored.length, 7, `the original and six variants of one run: ${stored}`);
    assert.ok(
      stored.every((key) => key.startsWith(winner)),
      `only the winning run's images are kept: ${stored}`,
    );
  });
});

describe('a render job whose runs kept dying (each lost its lease: the render takes its worker down)', () => {
  let g: GenerationApp;
  before(async () => {
    g = await startGenerationApp({ workers: false });
  });
  after(() => g.close());

  it('fails its generation with render_failed once render.maxAttempts runs have died, refunded, without rendering again', async () => {
    const { apiKey, organization } = await g.app.tenants.createOrganization({ name: 'Poison', credits: 3 });
    const { id } = await (await g.api.post(apiKey.key, g.validBody())).json();
    const { renderGeneration, renderer, config, persistence } = g.app.container.cradle;
    let renders = 0;
    const render = renderer.render.bind(renderer);
    renderer.render = (input) => (renders++, render(input));
    const payload = { generationId: id, organizationId: organization.id };
    const lastChance = config.render.maxAttempts - 1;
    // One run short of the limit, it still renders (and completes this time).
    const { id: otherId } = await (await g.api.post(apiKey.key, g.validBody())).json();
    await renderGeneration({
      id: 'job_survivor',
      kind: renderJobKind,
      payload: { ...payload, generationId: otherId },
      attempts: lastChance + 1,
      failures: lastChance,
    });
    assert.equal((await (await g.api.get(apiKey.key, `/v1/generations/${otherId}`)).json()).status, 'complete');
    assert.equal(renders, 1);

    const strayJobs = () => jobsOf(persistence).pending(['delete_stray_images']);
    const strayJobsBefore = await strayJobs();
    await renderGeneration({
      id: 'job_poison',
      kind: renderJobKind,
      payload,
      attempts: config.render.maxAttempts + 1,
      failures: config.render.maxAttempts,
    });
    const failed = await (await g.api.get(apiKey.key, `/v1/generations/${id}`)).json();
    assert.equal(failed.status, 'failed');
    assert.deepEqual(failed.error, { code: 'render_failed', message: 'The visualization could not be completed.' });
    assert.equal(renders, 1, 'not rendered again');
    assert.equal(
      (await (await g.api.get(apiKey.key, '/v1/credits')).json()).balance,
      2,
      'refunded (the other one is charged)',
    );
    assert.equal(
      await strayJobs(),
      strayJobsBefore + 1,
      'the runs that died may have stored images: their deletion is queued',
    );
  });
});

describe('a worker stopping while it fetches an image (shutdownTimeoutMs passed)', () => {
  let g: GenerationApp;
  before(async () => {
    g = await startGenerationApp({
      config: { pluginOptions: { 'queue-db': { pollIntervalMs: 50, leaseMs: 600_000 } } },
    });
  });
  after(() => g.close());

  it('aborts the fetch, so its job is released to other workers at once rather than waiting out the fetch timeout', async () => {
    const { apiKey, organization } = await g.app.tenants.createOrganization({
      name: 'Deploy while fetching',
      credits: 3,
    });
    const { queue, persistence } = g.app.container.cradle;
    const { id } = await (await g.api.post(apiKey.key, g.validBody({ image: `${g.host.url}/hang` }))).json();
    for (let waited = 0; g.host.hanging() === 0; waited += 20) {
      assert.ok(waited < 20_000, 'the photo fetch started');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // The fetch would wait 15 s for the host; the queue waits 100 ms, aborts, then at most 2 s more.
    await queue.stop(100);
    assert.equal((await (await g.api.get(apiKey.key, `/v1/generations/${id}`)).json()).status, 'processing');
    // The lease was 10 minutes: another worker can claim the job now only because it was released.
    const [job] = await jobsOf(persistence).claim({
      kinds: [renderJobKind],
      workerId: 'next',
      now: Date.now(),
      leaseMs: 60_000,
      limit: 1,
    });
    assert.deepEqual(job && [job.payload, job.failures], [{ generationId: id, organizationId: organization.id }, 0]);
  });
});

describe('a worker stopping while it renders (shutdownTimeoutMs passed)', () => {
  let g: GenerationApp;
  before(async () => {
    // An engine that takes a minute: the render is still running when the worker stops.
    g = await startGenerationApp({
      config: {
        pluginOptions: { 'queue-db': { pollIntervalMs: 50, leaseMs: 600_000 }, 'renderer-mock': { latencyMs: 60_000 } },
      },
    });
  });
  after(() => g.close());

  it('aborts the render, even on its last retry, and releases its job to other workers at once: not failed, not refunded, not a failure', async () => {
    const { apiKey, organization } = await g.app.tenants.createOrganization({ name: 'Deploy', credits: 3 });
    const { renderer, queue, persistence, config } = g.app.container.cradle;
    let rendering = false;
    let calls = 0;
    const render = renderer.render.bind(renderer);
    renderer.render = async (input) => {
      // The engine fails transiently until the last retry, which is still running when the worker stops.
      if (++calls < config.render.maxAttempts)
        throw new RenderError('renderer_unavailable', 'engine answered 503', true);
      rendering = true;
      return render(input);
    };
    const { id } = await (await g.api.post(apiKey.key, g.validBody())).json();
    for (let waited = 0; !rendering; waited += 20) {
      assert.ok(waited < 20_000, 'the render started');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await queue.stop(100);
    const generation = await (await g.api.get(apiKey.key, `/v1/generations/${id}`)).json();
    assert.equal(generation.status, 'processing', 'not failed: the worker stopped, the render did not fail');
    assert.equal((await (await g.api.get(apiKey.key, '/v1/credits')).json()).balance, 2, 'charged, not refunded');
    // The lease was 10 minutes: another worker can claim the job now only because it was released.
    const [job] = await jobsOf(persistence).claim({
      kinds: [renderJobKind],
      workerId: 'next',
      now: Date.now(),
      leaseMs: 60_000,
      limit: 1,
    });
    const lastRetry = config.render.maxAttempts - 1;
    assert.deepEqual(job && [job.payload, job.attempts, job.failures], [
      { generationId: id, organizationId: organization.id },
      lastRetry + 2,
      lastRetry,
    ]);
  });
});
