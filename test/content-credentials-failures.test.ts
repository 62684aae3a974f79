/**
 * A render whose Content Credentials or XMP cannot be added: the engine's image is made and paid
 * for, so the signature is asked for once more in the same run, and a failure that persists fails
 * the generation for good, refunded, without calling the engine again or storing an unsigned image.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import sharp from 'sharp';
import { generationImagesPrefix } from '../core/domain/blob-keys.ts';
import type { ContentCredentials } from '../core/ports/content-credentials.ts';
import { startGenerationApp, type GenerationApp } from './support/generation-app.ts';

describe('a render whose credentials cannot be added', () => {
  let g: GenerationApp;
  let key: string;
  let engineCalls = 0;
  let signCalls = 0;
  /** Set per test: how the fake signer answers its n-th call (from 1), and what the engine returns instead of its image. */
  let signs: (call: number) => Promise<void> = async () => {};
  let engineImage: Buffer | undefined;

  // Hands the image back as it came: the core neither reads nor checks a manifest.
  const credentials: ContentCredentials = {
    name: 'fake',
    signer: { subject: 'CN=fake', development: true, source: 'test' },
    async sign(image) {
      await signs(++signCalls);
      return image;
    },
  };

  before(async () => {
    g = await startGenerationApp({ workers: true, ports: { credentials } });
    const { renderer } = g.app.container.cradle;
    const render = renderer.render.bind(renderer);
    renderer.render = async (input) => {
      engineCalls++;
      const result = await render(input);
      return engineImage ? { ...result, image: engineImage, contentType: 'image/png' } : result;
    };
    key = (await g.app.tenants.createOrganization({ name: 'Acme', credits: 10 })).apiKey.key;
  });
  after(() => g?.close());
  beforeEach(() => {
    engineCalls = 0;
    signCalls = 0;
    signs = async () => {};
    engineImage = undefined;
  });

  const balance = async () => (await (await g.api.get(key, '/v1/credits')).json()).balance as number;
  async function stored(id: string) {
    const keys: string[] = [];
    for await (const { key: stored } of g.app.container.cradle.cdn.list(generationImagesPrefix(id), 'public'))
      keys.push(stored);
    return keys;
  }
  async function assertFailedAndRefunded(id: string, before: number) {
    const done = await g.api.settled(key, id);
    assert.equal(done.status, 'failed');
    assert.deepEqual(done.error, { code: 'render_failed', message: 'The visualization could not be completed.' });
    assert.equal(await balance(), before, 'refunded');
    const ledger = await (await g.api.get(key, '/v1/credits/ledger?limit=100')).json();
    assert.ok(
      ledger.data.some(
        (entry: { reason: string; reference: string }) =>
          entry.reason === 'generation_refund' && entry.reference === id,
      ),
    );
    assert.deepEqual(await stored(id), [], 'no unsigned image is stored');
  }

  it('signs again once in the same run when a signature fails, and completes without a second render', async () => {
    signs = async (call) => {
      if (call === 1) throw new Error('content credentials: the signing thread exited (1)');
    };
    const { id } = await (await g.api.post(key, g.validBody())).json();
    const done = await g.api.settled(key, id);
    assert.equal(done.status, 'complete', JSON.stringify(done.error));
    assert.equal(engineCalls, 1);
    assert.equal(signCalls, 8, 'the original twice, then six variants');
    assert.equal((await stored(id)).length, 7);
  });

  it('fails the generation for good, refunded, when signing fails again: the engine is called once, nothing is stored', async () => {
    signs = async () => {
      throw new Error('content credentials: the key does not sign');
    };
    const before = await balance();
    const { id } = await (await g.api.post(key, g.validBody())).json();
    await assertFailedAndRefunded(id, before);
    assert.equal(engineCalls, 1, 'the engine is not paid again');
    assert.equal(signCalls, 2, 'the original, and once more');
  });

  it('fails it the same way when the engine’s image takes no XMP', async () => {
    // A PNG cut before its end chunk: sharp reads its header, the XMP writer finds no end.
    const png = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#468' } })
      .png()
      .toBuffer();
    engineImage = png.subarray(0, png.length - 12);
    const before = await balance();
    const { id } = await (await g.api.post(key, g.validBody())).json();
    await assertFailedAndRefunded(id, before);
    assert.equal(engineCalls, 1, 'the engine is not paid again');
    assert.equal(signCalls, 0);
  });
});
