import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { uploadSweep } from '../core/services/upload-sweep.ts';
import { bearer, startTestApp, type TestApp } from './support/app.ts';

describe('the upload sweep', () => {
  let app: TestApp;
  let key: string;
  let photo: string;
  const hour = 3_600_000;

  before(async () => {
    app = await startTestApp();
    key = (await app.tenants.createOrganization({ name: 'Sweep', credits: 10 })).apiKey.key;
    const jpeg = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#336699' } })
      .jpeg()
      .toBuffer();
    photo = `data:image/jpeg;base64,${jpeg.toString('base64')}`;
  });
  after(() => app.close());

  /** Sweeps as if `laterMs` had passed; workers are not started, so generations stay in progress. */
  const sweepAfter = (laterMs: number) => {
    const { cdn, persistence, config, logger } = app.container.cradle;
    return uploadSweep({ cdn, persistence, config, logger, clock: { now: () => Date.now() + laterMs } })();
  };
  const uploads = async () => {
    const keys: string[] = [];
    for await (const object of app.container.cradle.cdn.list('uploads/', 'private')) keys.push(object.key);
    return keys.sort();
  };
  const createWithUpload = async () => {
    const response = await fetch(`${app.url}/v1/generations`, {
      method: 'POST',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      body: JSON.stringify({
        mode: 'virtual-try-on',
        image: photo,
        products: [{ productId: 1, productTitle: 'Hat', imageUrl: 'https://shop.example/hat.png' }],
      }),
    });
    assert.equal(response.status, 202);
    return (await response.json()).id as string;
  };

  it('deletes an old upload whose generation never committed or is terminal, and keeps the rest', async () => {
    const { cdn, persistence } = app.container.cradle;
    const inProgress = await createWithUpload();
    const terminal = await createWithUpload();
    await persistence.generations.fail(terminal, { code: 'render_failed', message: 'x', completedAt: Date.now() });
    // What a create that died between its upload and its commit leaves: a photo and no generation.
    const jpeg = new Uint8Array(Buffer.from(photo.split(',')[1]!, 'base64'));
    await cdn.put('uploads/agen_neverCommitted/photo.jpg', jpeg, { contentType: 'image/jpeg', visibility: 'private' });
    const all = await uploads();
    assert.equal(all.length, 3);

    assert.equal(await sweepAfter(0), 0, 'nothing is old enough yet: a create may still be between upload and commit');
    assert.deepEqual(await uploads(), all);

    assert.equal(await sweepAfter(2 * hour), 2);
    const left = await uploads();
    assert.equal(left.length, 1);
    assert.ok(left[0]!.startsWith(`uploads/${inProgress}/`), 'the photo of a generation in progress stays');
  });
});
