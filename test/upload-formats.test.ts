import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { photoJpeg, startGenerationApp, type GenerationApp } from './support/generation-app.ts';

/** The photo in each format the intake accepts (README: JPEG, PNG, WebP, GIF, AVIF, TIFF). */
const formats = {
  jpeg: () => Promise.resolve(photoJpeg),
  png: () => sharp(photoJpeg).png().toBuffer(),
  webp: () => sharp(photoJpeg).webp().toBuffer(),
  gif: () => sharp(photoJpeg).gif().toBuffer(),
  avif: () => sharp(photoJpeg).avif().toBuffer(),
  tiff: () => sharp(photoJpeg).tiff().toBuffer(),
} as const;

describe('uploaded photos', () => {
  let g: GenerationApp;
  let key: string;

  before(async () => {
    g = await startGenerationApp();
    key = (await g.app.tenants.createOrganization({ name: 'Acme', credits: 100 })).apiKey.key;
  });
  after(async () => g.close());

  // Each is stored privately under a key whose extension names its format; a format the key
  // rules did not know was refused by the store, and the upload answered 503 as if storage were down.
  for (const [format, encode] of Object.entries(formats)) {
    it(`accepts a ${format.toUpperCase()} data URI, stores it and renders it`, async () => {
      const image = `data:image/${format};base64,${(await encode()).toString('base64')}`;
      const response = await g.api.post(key, g.validBody({ image }));
      assert.equal(response.status, 202, await response.clone().text());
      const done = await g.api.settled(key, (await response.json()).id);
      assert.equal(done.status, 'complete', JSON.stringify(done.error));
    });
  }
});
