import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { widgetBodyLimitBesidesPhoto } from '../core/http/routes/widgets.ts';
import { errorOf, startBrowserApp, type BrowserApp } from './support/browser-app.ts';

/**
 * The keyless widget route's body: all but the photo (a data URI) must fit in 64 KB, checked as the
 * bytes arrive, and only that rest is parsed; the photo is put back as it was sent (see
 * keyless-stall.test.ts for what this keeps from the event loop).
 */

/** A photo whose data URI alone is far beyond the 64 KB the rest of the body may take. */
const bigPhoto = await sharp({
  create: {
    width: 1000,
    height: 1000,
    channels: 3,
    background: '#000',
    noise: { type: 'gaussian', mean: 128, sigma: 50 },
  },
})
  .jpeg({ quality: 90 })
  .toBuffer();

describe('keyless generation bodies', () => {
  let b: BrowserApp;
  let shop: Awaited<ReturnType<BrowserApp['organization']>>;
  let widgetId: string;

  before(async () => {
    b = await startBrowserApp();
    shop = await b.organization('Photos', 50);
    widgetId = (await b.createWidget(shop.apiKey, { storeId: shop.storeId })).id;
  });
  after(() => b.close());

  it('takes a photo far larger than the rest of the body may be, and stores it byte for byte', async () => {
    assert.ok(bigPhoto.length > 4 * widgetBodyLimitBesidesPhoto);
    const image = `data:image/jpeg;base64,${bigPhoto.toString('base64')}`;
    const { image: _url, ...rest } = b.widgetBody('visitor-big', 'session-big', ['sku-1'], { hint: 'é'.repeat(400) });
    // The photo last, and spaced as a hand-written body would be.
    const body = `${JSON.stringify(rest).slice(0, -1)},\n  "image" :  "${image}"\n}`;
    // The upload is deleted once rendered, so what is stored is seen on its way in.
    const { cdn } = b.g.app.container.cradle;
    const put = cdn.put;
    const stored: Uint8Array[] = [];
    cdn.put = (key, bytes, options) => {
      stored.push(bytes);
      return put.call(cdn, key, bytes, options);
    };
    let response: Response;
    try {
      response = await b.widgetGeneration(widgetId, body);
    } finally {
      cdn.put = put;
    }
    assert.equal(response.status, 202, await response.clone().text());
    const accepted = await response.json();
    assert.equal(accepted.hint, 'é'.repeat(400));
    assert.deepEqual(
      stored.map((bytes) => Buffer.from(bytes)),
      [bigPhoto],
    );
    assert.equal((await b.settledForVisitor(widgetId, accepted.id, 'visitor-big')).status, 'complete');
  });

  it('refuses with 413 a body holding more than 64 KB besides the photo, or a large body without one', async () => {
    const image = `data:image/jpeg;base64,${bigPhoto.toString('base64')}`;
    const valid = b.widgetBody('visitor-413', 'session-413');
    const manyKeys = `{${Array.from({ length: 20_000 }, (_, i) => `"k${i}":1`).join(',')}}`;
    const cases: Array<[string, string]> = [
      [
        'a long hint beside the photo',
        JSON.stringify({ ...valid, image, hint: 'x'.repeat(widgetBodyLimitBesidesPhoto) }),
      ],
      [
        'many products beside the photo',
        JSON.stringify({ ...valid, image, products: Array.from({ length: 2_000 }, () => valid.products[0]) }),
      ],
      ['a large body without a photo', manyKeys],
      ['a data URI somewhere other than image', JSON.stringify({ ...valid, hint: image })],
    ];
    for (const [what, body] of cases) {
      const error = await errorOf(await b.widgetGeneration(widgetId, body), 413);
      assert.deepEqual([error.type, error.code], ['invalid_request_error', 'body_too_large'], what);
      assert.match(error.message, /65536 bytes besides the photo/, what);
    }
  });

  it('takes small bodies as before, and refuses a photo written with JSON escapes as an invalid image', async () => {
    const small = await b.widgetGeneration(widgetId, b.widgetBody('visitor-small', 'session-small'));
    assert.equal(small.status, 202, await small.clone().text());
    const escaped = `data:image\\/jpeg;base64,${bigPhoto.toString('base64').replaceAll('/', '\\/')}`;
    const body = `${JSON.stringify(b.widgetBody('visitor-esc', 'session-esc')).slice(0, -1)},"image":"${escaped}"}`;
    const error = await errorOf(await b.widgetGeneration(widgetId, body), 400);
    assert.equal(error.param, 'image');
    const unterminated = await errorOf(
      await b.widgetGeneration(widgetId, `{"image":"data:image/jpeg;base64,${'A'.repeat(100_000)}`),
      400,
    );
    assert.equal(unterminated.code, 'invalid_json');
  });
});
