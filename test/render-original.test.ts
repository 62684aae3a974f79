import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { asValue } from 'awilix';
import sharp from 'sharp';
import { startWorkers } from '../core/lifecycle.ts';
import type { RenderEngine } from '../core/ports/render-engine.ts';
import { startGenerationApp, type GenerationApp } from './support/generation-app.ts';

/**
 * A third party's engine may name its image's type in another case, or answer in a format the
 * service does not serve as is. The original is stored by what its bytes are, never by the name,
 * and keeps the engine's encoded image: only metadata (XMP, Content Credentials) is added.
 */
describe("a render's original", () => {
  let g: GenerationApp;
  let key: string;
  /** What the stub engine answers next, and how many renders it was asked for. */
  let reply: { image: Buffer; contentType: string };
  let renders = 0;

  before(async () => {
    g = await startGenerationApp({ workers: false });
    const engine: RenderEngine = {
      name: 'third-party',
      async render() {
        renders++;
        return reply;
      },
    };
    g.app.container.register({ renderer: asValue(engine) });
    await startWorkers(g.app.container.cradle);
    key = (await g.app.tenants.createOrganization({ name: 'Acme', credits: 100 })).apiKey.key;
  });
  after(async () => g.close());

  const image = (format: 'jpeg' | 'png' | 'webp' | 'avif' | 'gif' | 'tiff', alpha = false) =>
    sharp({
      create: {
        width: 1024,
        height: 768,
        channels: alpha ? 4 : 3,
        background: { r: 40, g: 90, b: 200, alpha: alpha ? 0.5 : 1 },
      },
    })
      [format]()
      .toBuffer();

  async function renderWith(bytes: Buffer, contentType: string) {
    reply = { image: bytes, contentType };
    renders = 0;
    const { id } = await (await g.api.post(key, g.validBody())).json();
    // A mismatch the store refused was postponed as a storage outage for ever: it would never settle.
    const done = await g.api.settled(key, id, 10_000);
    assert.equal(done.status, 'complete', JSON.stringify(done.error));
    assert.equal(renders, 1, 'rendered once, not again after each postponement');
    const served = await fetch(done.imageUrl);
    assert.equal(served.status, 200);
    const body = Buffer.from(await served.arrayBuffer());
    return {
      url: done.imageUrl as string,
      type: served.headers.get('content-type'),
      body,
      metadata: await sharp(body).metadata(),
    };
  }

  /** The same pixels, decoded, and the engine's encoded image data found whole in the stored file. */
  async function assertEngineImageKept(stored: Buffer, engine: Buffer, imageData: Buffer) {
    const [before, after] = await Promise.all([sharp(engine).raw().toBuffer(), sharp(stored).raw().toBuffer()]);
    assert.ok(before.equals(after), 'the same pixels');
    assert.ok(stored.includes(imageData), "the engine's encoded image data, as it was");
  }

  it('keeps a PNG named image/PNG as PNG', async () => {
    const png = await image('png');
    const original = await renderWith(png, 'image/PNG');
    assert.match(original.url, /\/original\.png$/);
    assert.equal(original.type, 'image/png');
    const idat = png.indexOf('IDAT');
    await assertEngineImageKept(original.body, png, png.subarray(idat - 4, idat + 8 + png.readUInt32BE(idat - 4) + 4));
  });

  it('stores a JPEG the engine called image/png as the JPEG it is', async () => {
    const jpeg = await image('jpeg');
    const original = await renderWith(jpeg, 'image/png');
    assert.match(original.url, /\/original\.jpg$/);
    assert.equal(original.type, 'image/jpeg');
    // From the start of scan to the end of the image.
    await assertEngineImageKept(original.body, jpeg, jpeg.subarray(jpeg.indexOf(Buffer.from([0xff, 0xda]))));
  });

  it('keeps a WebP as WebP', async () => {
    const original = await renderWith(await image('webp'), 'image/webp; charset=binary');
    assert.match(original.url, /\/original\.webp$/);
    assert.equal(original.metadata.format, 'webp');
  });

  for (const format of ['avif', 'gif', 'tiff'] as const) {
    it(`stores a ${format.toUpperCase()} render as PNG, its size${format === 'avif' ? ' and transparency' : ''} kept`, async () => {
      const original = await renderWith(await image(format, format === 'avif'), `image/${format}`);
      assert.match(original.url, /\/original\.png$/);
      assert.equal(original.type, 'image/png');
      assert.deepEqual(
        [original.metadata.format, original.metadata.width, original.metadata.height],
        ['png', 1024, 768],
      );
      if (format === 'avif') assert.equal(original.metadata.hasAlpha, true);
    });
  }
});
