/**
 * Image storage that fails (S3 unreachable, a disk that cannot be read) is our outage, not the
 * customer's: a render that meets it is postponed for as long as it lasts, however many attempts
 * that takes, and completes once storage is back, charged once, with its retries for the engine's
 * own failures unspent; the app's `/cdn/` route answers
 * 503, never a 404 that a browser or a CDN in front could cache for an image that exists.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startWorkers } from '../core/lifecycle.ts';
import { silentLogger, type Logger } from '../core/logger.ts';
import { RenderError } from '../core/ports/render-engine.ts';
import { cuttableRelay } from './support/cuttable-relay.ts';
import { errorOf } from './support/databases.ts';
import { photoJpeg, productPng, startGenerationApp, type GenerationApp } from './support/generation-app.ts';
import { startS3rver } from './support/s3-server.ts';

const maxAttempts = 2;

/** Counts the warnings a postponed render logs, per generation. */
function postponements() {
  const counts = new Map<string, number>();
  const logger: Logger = {
    ...silentLogger,
    warn(message, fields) {
      if (message === 'render postponed: image storage failed')
        counts.set(String(fields?.generationId), (counts.get(String(fields?.generationId)) ?? 0) + 1);
    },
  };
  return {
    logger,
    async atLeast(ids: string[], times: number) {
      for (let waited = 0; ids.some((id) => (counts.get(id) ?? 0) < times); waited += 20) {
        if (waited > 20_000)
          throw new Error(`renders postponed ${JSON.stringify([...counts])} times, expected ${times} each`);
        await sleep(20);
      }
    },
  };
}

describe('an unavailable image store (s3rver behind a cut relay)', () => {
  const bucket = 'visualizer-outage';
  let s3: Awaited<ReturnType<typeof startS3rver>>;
  let relay: Awaited<ReturnType<typeof cuttableRelay>>;
  let g: GenerationApp;
  const postponed = postponements();

  before(async () => {
    s3 = await startS3rver(bucket);
    relay = await cuttableRelay({ host: '127.0.0.1', port: Number(new URL(s3.endpoint).port) });
    g = await startGenerationApp({
      workers: false,
      logger: postponed.logger,
      config: {
        render: { maxAttempts, retryBaseDelayMs: 20 },
        plugins: { cdn: 's3' },
        pluginOptions: {
          'queue-db': { pollIntervalMs: 50 },
          'cdn-s3': {
            bucket,
            endpoint: `http://127.0.0.1:${relay.port}`,
            accessKeyId: 'S3RVER',
            secretAccessKey: 'S3RVER',
            requestTimeoutMs: 2_000,
          },
        },
      },
    });
  });
  after(async () => {
    await g?.close();
    await relay?.close();
    await s3?.close();
  });

  it(`postpones renders while it is down, past render.maxAttempts (${maxAttempts}), and completes them once it is back, charged once, retries unspent`, async () => {
    const { apiKey } = await g.app.tenants.createOrganization({ name: 'Outage', credits: 10 });
    const key = apiKey.key;
    const balance = async () => (await (await g.api.get(key, '/v1/credits')).json()).balance as number;
    // One render reads an uploaded photo from storage; both store their images there.
    const uploaded = await (
      await g.api.post(key, g.validBody({ image: `data:image/jpeg;base64,${photoJpeg.toString('base64')}` }))
    ).json();
    const fetched = await (await g.api.post(key, g.validBody())).json();
    const ids = [uploaded.id as string, fetched.id as string];

    const { renderer } = g.app.container.cradle;
    const render = renderer.render.bind(renderer);
    let renders = 0;
    /** The engine's own transient failures to answer with, once storage is back. */
    let engineFailures = 0;
    renderer.render = async (input) => {
      renders++;
      if (engineFailures > 0) {
        engineFailures--;
        throw new RenderError('renderer_unavailable', 'engine answered 503', true);
      }
      return render(input);
    };
    await relay.cut();
    try {
      await startWorkers(g.app.container.cradle);
      await postponed.atLeast(ids, maxAttempts + 2);
      // The fetched photo's first run rendered, then could not store; every retry found storage
      // still down before rendering again. The upload could not even be read.
      assert.equal(renders, 1, 'no render is paid for again while storage is down');
      for (const id of ids)
        assert.equal(
          (await (await g.api.get(key, `/v1/generations/${id}`)).json()).status,
          'processing',
          'not failed for our outage',
        );
      assert.equal(await balance(), 8, 'not refunded either: it is still to be made');
      // The first render after the outage meets a transient engine failure: the runs the outage
      // postponed spent none of the render's retries, so it is retried rather than failed.
      engineFailures = 1;
    } finally {
      await relay.restore();
    }

    for (const id of ids) {
      const done = await g.api.settled(key, id);
      assert.equal(done.status, 'complete', JSON.stringify(done.error));
      const image = await fetch(done.imageVariants.card.url);
      assert.equal(image.status, 200, 'its images were stored once storage was back');
      await image.arrayBuffer();
    }
    assert.equal(engineFailures, 0, 'the engine failure happened');
    const credits = await (await g.api.get(key, '/v1/credits')).json();
    assert.equal(credits.balance, 8, 'each charged once');
    const ledger = await (await g.api.get(key, '/v1/credits/ledger?limit=100')).json();
    assert.ok(
      !ledger.data.some((entry: { reason: string }) => entry.reason === 'generation_refund'),
      'nothing refunded',
    );
  });
});

describe('an unavailable image store (local disk that cannot be read)', () => {
  let g: GenerationApp;
  let key: string;
  const postponed = postponements();
  /** Makes the local CDN's reads fail as a failing disk's do, until the returned function is called. */
  function failReads() {
    const { cdn } = g.app.container.cradle;
    const get = cdn.get;
    let reads = 0;
    cdn.get = async () => {
      reads++;
      throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' });
    };
    return {
      reads: () => reads,
      restore: () => void (cdn.get = get),
    };
  }

  before(async () => {
    g = await startGenerationApp({
      logger: postponed.logger,
      config: { render: { maxAttempts, retryBaseDelayMs: 20 } },
    });
    key = (await g.app.tenants.createOrganization({ name: 'Disk', credits: 10 })).apiKey.key;
  });
  after(() => g?.close());

  it('answers an image request with 503 storage_unavailable and Retry-After, and a key it would refuse with 404', async () => {
    const { cdn } = g.app.container.cradle;
    const stored = await cdn.put('catalog/lamp.png', productPng, { contentType: 'image/png', visibility: 'public' });
    const failing = failReads();
    try {
      const response = await fetch(stored.url!);
      const error = await errorOf(response, 503);
      assert.deepEqual([error.type, error.code], ['api_error', 'storage_unavailable']);
      assert.equal(response.headers.get('retry-after'), '1');
      assert.equal(response.headers.get('cache-control'), null);
      for (const refused of ['catalog%2Flamp.png', 'catalog//lamp.png', 'catalog/lamp'])
        assert.equal((await fetch(`${g.app.url}/cdn/${refused}`)).status, 404, refused);
      assert.equal(failing.reads(), 1, 'keys the store would refuse never reach it');
    } finally {
      failing.restore();
    }
    assert.equal((await fetch(stored.url!)).status, 200);
  });

  it('postpones a render whose product image on this CDN cannot be read, rather than calling it missing', async () => {
    const { cdn } = g.app.container.cradle;
    const stored = await cdn.put('catalog/chair.png', productPng, { contentType: 'image/png', visibility: 'public' });
    const failing = failReads();
    let id: string;
    try {
      id = (
        await (
          await g.api.post(
            key,
            g.validBody({ products: [{ productId: 9, productTitle: 'Chair', imageUrl: stored.url }] }),
          )
        ).json()
      ).id;
      await postponed.atLeast([id], maxAttempts + 1);
      assert.equal((await (await g.api.get(key, `/v1/generations/${id}`)).json()).status, 'processing');
    } finally {
      failing.restore();
    }
    assert.equal((await g.api.settled(key, id)).status, 'complete');
  });

  it('refuses, without reading storage, a product URL on this CDN that no key could have', async () => {
    const failing = failReads();
    try {
      const { publicUrl } = g.app.container.cradle.config;
      const response = await g.api.post(
        key,
        g.validBody({
          products: [{ productId: 9, productTitle: 'Odd', imageUrl: `${publicUrl}/cdn/catalog//chair.png` }],
        }),
      );
      const error = await errorOf(response, 400);
      assert.equal(error.param, 'products[0].imageUrl');
      assert.equal(failing.reads(), 0);
    } finally {
      failing.restore();
    }
  });
});
