/**
 * Deleting generations (`DELETE /v1/generations/{id}`, an admin in the dashboard, the render
 * retention), on SQLite and Postgres, with images on local disk and on s3rver: the images and the
 * uploaded photo leave storage and their URLs answer 404, reads answer 404 (410 for an expired
 * one), an idempotency key's replay makes and charges nothing, a processing render is discarded
 * and never written, two DELETEs at once or a DELETE racing a render's failure refund once, and
 * the uploaded photo is never logged.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { createLogger } from '../core/logger.ts';
import { renderJobKind } from '../core/services/generations.ts';
import { RenderError } from '../core/ports/render-engine.ts';
import { purgeImagesJobKind } from '../core/services/generation-deletion.ts';
import { renderRetentionSweep } from '../core/services/retention.ts';
import { bearer } from './support/app.ts';
import { databaseMatrix, errorOf } from './support/databases.ts';
import { photoJpeg, startGenerationApp, type GenerationApp } from './support/generation-app.ts';
import { startS3rver } from './support/s3-server.ts';
import { invitedSession } from './support/sessions.ts';
import { waitFor } from './support/wait-for.ts';
import { jobsOf } from '../plugins/queue-db/tables.ts';

const day = 24 * 3_600_000;
const { databases, stop } = databaseMatrix();
after(stop);

type Line = Record<string, unknown>;

for (const [database, environment] of databases) {
  for (const cdnName of ['local', 's3'] as const) {
    describe(`deleting generations (${database}, ${cdnName} storage)`, () => {
      let g: GenerationApp;
      let s3: Awaited<ReturnType<typeof startS3rver>> | undefined;
      let apiKey: string;
      let organizationId: string;
      /** The service's clock runs this far ahead of the real one (the render retention's days). */
      let offsetMs = 0;
      const lines: Line[] = [];
      const restores: (() => void)[] = [];

      before(async () => {
        const bucket = 'deletion';
        if (cdnName === 's3') s3 = await startS3rver(bucket);
        const logger = createLogger({ level: 'debug', write: (line) => lines.push(JSON.parse(line)) });
        g = await startGenerationApp({
          env: await environment(),
          logger,
          ports: { clock: { now: () => Date.now() + offsetMs } },
          config: {
            // The purge queued for a render that may still store images comes 300 ms later here.
            render: { maxAttempts: 3, retryBaseDelayMs: 20, strayImagesAfterMs: 300 },
            ...(s3
              ? {
                  plugins: { cdn: 's3' },
                  pluginOptions: {
                    'queue-db': { pollIntervalMs: 50 },
                    'cdn-s3': { bucket, endpoint: s3.endpoint, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
                  },
                }
              : {}),
          },
        });
        const created = await g.app.tenants.createOrganization({ name: 'Deletions', credits: 1_000 });
        apiKey = created.apiKey.key;
        organizationId = created.organization.id;
      });
      afterEach(() => {
        for (const restore of restores.splice(0).reverse()) restore();
      });
      after(async () => {
        await g?.close();
        await s3?.close();
      });

      const cradle = () => g.app.container.cradle;
      const url = (path: string) => `${g.app.url}${path}`;
      const upload = () => `data:image/jpeg;base64,${photoJpeg.toString('base64')}`;
      const create = async (overrides: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
        const response = await g.api.post(apiKey, g.validBody({ image: upload(), ...overrides }), headers);
        const text = await response.text();
        assert.equal(response.status, 202, text);
        return JSON.parse(text).id as string;
      };
      const remove = (id: string, headers: Record<string, string> = bearer(apiKey)) =>
        fetch(url(`/v1/generations/${id}`), { method: 'DELETE', headers });
      const balance = async () => (await (await g.api.get(apiKey, '/v1/credits')).json()).balance as number;
      const stored = async (prefix: string, visibility: 'public' | 'private') => {
        const keys: string[] = [];
        for await (const { key } of cradle().cdn.list(prefix, visibility)) keys.push(key);
        return keys;
      };
      /** The original, and the JPEG and WebP of every variant: every URL a finished generation has. */
      const imageUrls = (generation: { imageUrl: string; imageVariants: Record<string, { url: string }> }) => [
        generation.imageUrl,
        ...Object.values(generation.imageVariants).flatMap(({ url }) => [url, url.replace(/\.jpg$/, '.webp')]),
      ];
      const statuses = async (urls: string[]) => Promise.all(urls.map(async (image) => (await fetch(image)).status));
      const nothingPending = () =>
        waitFor(
          'the queue to empty',
          async () => (await cradle().queue.pending([renderJobKind, purgeImagesJobKind])) === 0,
        );
      /** Replaces `object[name]` until the test ends. */
      function patch<T extends object, K extends keyof T>(object: T, name: K, replacement: T[K]) {
        const original = object[name];
        object[name] = replacement;
        restores.push(() => void (object[name] = original));
      }

      it('deletes the original, every variant and the photo; the URLs and GET answer 404; deleting again answers the same', async () => {
        const id = await create();
        const done = await g.api.settled(apiKey, id);
        assert.equal(done.status, 'complete');
        const urls = imageUrls(done);
        assert.equal(urls.length, 7);
        assert.deepEqual(await statuses(urls), Array(7).fill(200));
        assert.deepEqual(await stored(`uploads/${id}/`, 'private'), [], 'the photo went when the render ended');
        const charged = await balance();

        const response = await remove(id);
        assert.equal(response.status, 200);
        assert.deepEqual(await response.json(), { id, object: 'generation', deleted: true });

        const missing = await errorOf(await g.api.get(apiKey, `/v1/generations/${id}`), 404);
        assert.deepEqual(missing, {
          type: 'not_found_error',
          code: 'resource_missing',
          message: `No such generation: '${id}'.`,
          param: 'id',
        });
        const list = await (await g.api.get(apiKey, '/v1/generations?limit=100')).json();
        assert.ok(!list.data.some((generation: { id: string }) => generation.id === id), 'lists leave it out');

        await waitFor(
          'every image URL to answer 404',
          async () => (await statuses(urls)).every((status) => status === 404),
          15_000,
        );
        assert.deepEqual(await stored(`gen/${id}/`, 'public'), []);
        assert.equal(await balance(), charged, 'a finished generation is not refunded');

        const again = await remove(id);
        assert.equal(again.status, 200, 'deleting a deleted generation answers the same');
        assert.deepEqual(await again.json(), { id, object: 'generation', deleted: true });
        await errorOf(await remove('agen_000000000000000000000000'), 404);
        await errorOf(await remove('not an id'), 404);
      });

      it("answers the replay of a deleted generation's idempotency key with 410, making and charging nothing", async () => {
        const key = `delete-replay-${database}-${cdnName}`;
        const id = await create({}, { 'idempotency-key': key });
        await g.api.settled(apiKey, id);
        assert.equal((await remove(id)).status, 200);
        await nothingPending();
        const before = await balance();
        const listed = async () =>
          (await (await g.api.get(apiKey, '/v1/generations?limit=100')).json()).data.length as number;
        const countBefore = await listed();

        const replay = await g.api.post(apiKey, g.validBody({ image: upload() }), { 'idempotency-key': key });
        const gone = await errorOf(replay, 410);
        assert.equal(gone.type, 'not_found_error');
        assert.equal(gone.code, 'generation_deleted');
        assert.equal(gone.param, 'Idempotency-Key');
        // Even a body that is not valid JSON: a bound key answers before the body is read.
        assert.equal(
          (await errorOf(await g.api.post(apiKey, '{', { 'idempotency-key': key }), 410)).code,
          'generation_deleted',
        );
        assert.equal(await balance(), before, 'nothing charged');
        assert.equal(await cradle().queue.pending([renderJobKind]), 0, 'no render queued');
        assert.equal(await listed(), countBefore, 'no generation made');
      });

      /** Holds the engine's renders until `finish()`; `rendering` resolves when one has started. `outcome` runs once released. */
      function holdRenders(outcome?: () => never) {
        const { renderer } = cradle();
        const render = renderer.render.bind(renderer);
        let started!: () => void;
        const rendering = new Promise<void>((resolve) => (started = resolve));
        let finish!: () => void;
        const held = new Promise<void>((resolve) => (finish = resolve));
        patch(renderer, 'render', async (request) => {
          started();
          await held;
          return outcome ? outcome() : render(request);
        });
        // A test that fails before releasing the render must not leave it holding the next tests' queue.
        restores.push(() => finish());
        return { rendering, finish };
      }
      /** Every key the service writes to public storage, as a CDN wrapping the real one sees them. */
      function recordPublicWrites() {
        const { cdn } = cradle();
        const put = cdn.put.bind(cdn);
        const keys: string[] = [];
        patch(cdn, 'put', async (key, body, options) => {
          if (options.visibility === 'public') keys.push(key);
          return put(key, body, options);
        });
        return { under: (id: string) => keys.filter((key) => key.startsWith(`gen/${id}/`)) };
      }
      const refundsOf = async (id: string) =>
        (
          (await (await g.api.get(apiKey, '/v1/credits/ledger?limit=100')).json()).data as {
            reason: string;
            reference: string;
            delta: number;
          }[]
        ).filter((entry) => entry.reason === 'generation_refund' && entry.reference === id);

      it('discards the render of a generation deleted while processing, refunds it, and never stores it', async () => {
        const writes = recordPublicWrites();
        const { rendering, finish } = holdRenders();
        const before = await balance();
        const id = await create();
        await rendering;
        assert.equal(await balance(), before - 1);

        assert.equal((await remove(id)).status, 200);
        assert.equal(await balance(), before, 'charged, then refunded');
        await errorOf(await g.api.get(apiKey, `/v1/generations/${id}`), 404);
        finish();
        await nothingPending();
        assert.deepEqual(writes.under(id), [], 'the render was never written to storage');
        assert.ok(
          lines.some(
            (line) =>
              line.message === 'render discarded: the generation was deleted (or ended) while it rendered' &&
              line.generationId === id,
          ),
          'the render ran to its check',
        );
        assert.deepEqual(await stored(`uploads/${id}/`, 'private'), [], 'the photo is gone');
        assert.deepEqual(
          (await refundsOf(id)).map((entry) => entry.delta),
          [1],
        );
        await errorOf(await g.api.get(apiKey, `/v1/generations/${id}`), 404);
      });

      it('removes what a render stored while the generation was being deleted', async () => {
        const { cdn, queue } = cradle();
        const writes = recordPublicWrites();
        // Without the purge a deletion queues for later, only the render itself can remove its images.
        const enqueue = queue.enqueue.bind(queue);
        let delayedPurges = 0;
        patch(queue, 'enqueue', async (tx, job) => {
          if (job.kind === purgeImagesJobKind && job.runAt > job.createdAt) return void (delayedPurges += 1);
          return enqueue(tx, job);
        });
        const put = cdn.put.bind(cdn);
        let storing!: () => void;
        const reached = new Promise<void>((resolve) => (storing = resolve));
        let go!: () => void;
        const proceed = new Promise<void>((resolve) => (go = resolve));
        let id = '';
        // The render has passed its check and is storing its images when the deletion commits.
        patch(cdn, 'put', async (key, body, options) => {
          if (id && key.startsWith(`gen/${id}/`)) {
            storing();
            await proceed;
          }
          return put(key, body, options);
        });
        id = await create();
        await reached;
        assert.equal((await remove(id)).status, 200);
        assert.equal(delayedPurges, 1, 'the later purge was left out');
        // The purge queued at once finds nothing yet: every write of the render is still held.
        await waitFor('the purge to run', async () => (await cradle().queue.pending([purgeImagesJobKind])) === 0);
        go();
        await nothingPending();
        assert.equal(writes.under(id).length, 7, 'the render stored its original and every variant');
        assert.deepEqual(
          await stored(`gen/${id}/`, 'public'),
          [],
          'and deleted them once it found the generation deleted',
        );
        await errorOf(await g.api.get(apiKey, `/v1/generations/${id}`), 404);
      });

      it('answers two concurrent DELETEs of a processing generation both with success, refunding it once', async () => {
        const { rendering, finish } = holdRenders();
        const before = await balance();
        const id = await create();
        await rendering;
        const responses = await Promise.all([remove(id), remove(id)]);
        for (const response of responses) {
          assert.equal(response.status, 200);
          assert.deepEqual(await response.json(), { id, object: 'generation', deleted: true });
        }
        assert.equal(await balance(), before, 'charged once, refunded once');
        assert.deepEqual(
          (await refundsOf(id)).map((entry) => entry.delta),
          [1],
        );
        finish();
        await nothingPending();
        assert.equal(await balance(), before);
      });

      for (const order of ['the DELETE first', 'the failure first', 'both at once'] as const) {
        it(`refunds a generation once when its DELETE races its render failing (${order})`, async () => {
          const { rendering, finish } = holdRenders(() => {
            throw new RenderError('render_failed', 'the engine produced no image', false);
          });
          const before = await balance();
          const id = await create();
          await rendering;
          assert.equal(await balance(), before - 1);
          if (order === 'the DELETE first') {
            assert.equal((await remove(id)).status, 200);
            finish();
          } else if (order === 'the failure first') {
            finish();
            assert.equal((await g.api.settled(apiKey, id)).status, 'failed');
            assert.equal((await remove(id)).status, 200);
          } else {
            const [response] = await Promise.all([remove(id), Promise.resolve().then(finish)]);
            assert.equal(response.status, 200);
          }
          await nothingPending();
          assert.equal(await balance(), before, 'charged once, refunded once');
          assert.deepEqual(
            (await refundsOf(id)).map((entry) => entry.delta),
            [1],
          );
          await errorOf(await g.api.get(apiKey, `/v1/generations/${id}`), 404);
        });
      }

      it('lets an admin delete from the dashboard and refuses a viewer', async () => {
        const id = await create();
        await g.api.settled(apiKey, id);
        const viewer = await invitedSession(g.app, organizationId, 'viewer');
        const refused = await errorOf(await remove(id, viewer.headers()), 403);
        assert.equal(refused.code, 'insufficient_role');
        assert.equal((await g.api.get(apiKey, `/v1/generations/${id}`)).status, 200, 'still there');
        const admin = await invitedSession(g.app, organizationId, 'admin');
        const deleted = await remove(id, admin.headers());
        assert.equal(deleted.status, 200, await deleted.clone().text());
        await errorOf(await fetch(url(`/v1/generations/${id}`), { headers: admin.headers() }), 404);
      });

      it('deletes the uploaded photo once its render ends, failed renders included, and never logs it', async () => {
        lines.length = 0;
        const photoKeys: string[] = [];
        const { cdn } = cradle();
        const put = cdn.put.bind(cdn);
        patch(cdn, 'put', async (key, body, options) => {
          if (options.visibility === 'private') photoKeys.push(key);
          return put(key, body, options);
        });
        const completed = await create();
        const failed = await create({
          products: [{ productId: 'sku-1', productTitle: 'Gone', imageUrl: `${g.host.url}/missing` }],
        });
        assert.equal((await g.api.settled(apiKey, completed)).status, 'complete');
        const failure = await g.api.settled(apiKey, failed);
        assert.equal(failure.status, 'failed');
        assert.equal(failure.error.code, 'image_fetch_failed');
        assert.equal(photoKeys.length, 2);
        for (const id of [completed, failed])
          assert.deepEqual(await stored(`uploads/${id}/`, 'private'), [], `${id}'s photo is deleted`);

        const logged = JSON.stringify(lines);
        assert.ok(
          lines.some((line) => line.message === 'request answered'),
          'the logs were captured',
        );
        const base64 = photoJpeg.toString('base64');
        for (let at = 0; at + 64 <= base64.length; at += 4096)
          assert.ok(!logged.includes(base64.slice(at, at + 64)), 'no part of the photo is logged');
        assert.ok(!logged.includes(photoJpeg.subarray(200, 264).toString('latin1')), 'nor its raw bytes');
        for (const key of photoKeys) {
          assert.ok(!logged.includes(key), `the photo's private key ${key} is not logged`);
          assert.ok(!logged.includes(key.split('/').pop()!), "nor its key's random name");
        }
        assert.ok(!logged.includes('private:'), 'nor a private reference');
      });

      it("keeps the photo's key out of the logs and the postponed jobs' reasons when storage fails on it", async () => {
        lines.length = 0;
        const { cdn, persistence } = cradle();
        const reasons: string[] = [];
        const jobs = jobsOf(persistence);
        const reschedule = jobs.reschedule.bind(jobs);
        patch(jobs, 'reschedule', async (jobId, workerId, retry) => {
          reasons.push(retry.error);
          return reschedule(jobId, workerId, retry);
        });
        // As Node's fs fails on a local disk: the message names the file, and so the photo's private key.
        const denied = (syscall: string, key: string) => {
          const file = `/srv/visualizer/images/private/${key}`;
          return Object.assign(new Error(`EACCES: permission denied, ${syscall} '${file}'`), {
            errno: -13,
            code: 'EACCES',
            syscall,
            path: file,
          });
        };
        const photoKeys: string[] = [];
        const failures = { get: 2, delete: 2 };
        const {
          put,
          get,
          delete: unlink,
        } = { put: cdn.put.bind(cdn), get: cdn.get.bind(cdn), delete: cdn.delete.bind(cdn) };
        patch(cdn, 'put', async (key, body, options) => {
          if (options.visibility === 'private') photoKeys.push(key);
          return put(key, body, options);
        });
        // The render's reads of the photo fail twice (postponed), then its deletion when the render
        // ends, then the purge's once (postponed), which then deletes it.
        patch(cdn, 'get', async (key, visibility) => {
          if (photoKeys.includes(key) && failures.get > 0 && failures.get--) throw denied('open', key);
          return get(key, visibility);
        });
        patch(cdn, 'delete', async (key, visibility) => {
          if (photoKeys.includes(key) && failures.delete > 0 && failures.delete--) throw denied('unlink', key);
          return unlink(key, visibility);
        });
        const id = await create();
        assert.equal((await g.api.settled(apiKey, id)).status, 'complete');
        assert.equal(photoKeys.length, 1);
        assert.equal((await stored(`uploads/${id}/`, 'private')).length, 1, 'the render could not delete the photo');
        assert.equal((await remove(id)).status, 200);
        await waitFor(
          'the purge to delete the photo',
          async () => (await stored(`uploads/${id}/`, 'private')).length === 0,
          15_000,
        );
        await nothingPending();

        const messages = (message: string) =>
          lines.filter((line) => line.message === message).map((line) => line.error);
        assert.deepEqual(
          messages('render postponed: image storage failed'),
          Array(2).fill('image storage failed: Error EACCES (open)'),
        );
        assert.deepEqual(messages('could not delete upload'), ['Error EACCES (unlink)']);
        assert.deepEqual(messages("deleting a deleted generation's images postponed: image storage failed"), [
          'Error EACCES (unlink)',
        ]);
        assert.deepEqual(
          reasons.filter((reason) => reason.startsWith('image storage failed')),
          [
            ...Array(2).fill('image storage failed: Error EACCES (open)'),
            'image storage failed: Error EACCES (unlink)',
          ],
          "the postponed jobs' stored reasons",
        );
        const written = JSON.stringify({ lines, reasons });
        const [key] = photoKeys;
        assert.ok(!written.includes(key!), `the photo's private key ${key} is neither logged nor stored`);
        assert.ok(!written.includes(key!.split('/').pop()!), "nor its key's random name");
        assert.ok(!written.includes('/private/'), 'nor a private path');
      });

      it('keeps renders for ever by default; with a retention of N days the sweep deletes older ones, which answer 410', async () => {
        const organization = await (await g.api.get(apiKey, '/v1/organization')).json();
        assert.deepEqual(
          { ...organization, createdAt: undefined },
          {
            id: organizationId,
            object: 'organization',
            name: 'Deletions',
            renderRetentionDays: null,
            createdAt: undefined,
          },
        );
        const invalid = await errorOf(
          await fetch(url('/v1/organization'), {
            method: 'PATCH',
            headers: { ...bearer(apiKey), 'content-type': 'application/json' },
            body: JSON.stringify({ renderRetentionDays: 0 }),
          }),
          400,
        );
        assert.equal(invalid.param, 'renderRetentionDays');

        const key = `expiring-${database}-${cdnName}`;
        const old = await create({}, { 'idempotency-key': key });
        const finished = await g.api.settled(apiKey, old);
        const others = [await create(), await create()];
        for (const id of others) await g.api.settled(apiKey, id);
        const urls = imageUrls(finished);
        const sweep = renderRetentionSweep(cradle());
        assert.equal((await sweep()).deleted, 0, 'no organization keeps renders for a limited time yet');

        const patched = await fetch(url('/v1/organization'), {
          method: 'PATCH',
          headers: { ...bearer(apiKey), 'content-type': 'application/json' },
          body: JSON.stringify({ renderRetentionDays: 2 }),
        });
        assert.equal(patched.status, 200);
        assert.equal((await patched.json()).renderRetentionDays, 2);
        assert.equal((await sweep()).deleted, 0, 'nothing is two days old yet');

        offsetMs = 2 * day + 60_000;
        try {
          const young = await create();
          await g.api.settled(apiKey, young);
          // Bounded: batches of one, two batches a sweep; the rest goes at the next sweep.
          const { persistence, clock, config, logger, ids, queue } = cradle();
          const bounded = renderRetentionSweep({
            persistence,
            clock,
            logger,
            ids,
            queue,
            config: { ...config, retention: { ...config.retention, batchSize: 1, maxBatchesPerRun: 2 } },
          });
          assert.deepEqual(await bounded(), { deleted: 2, batches: 2, organizations: 1 });
          const report = await sweep();
          assert.ok(report.deleted >= 1, JSON.stringify(report));
          for (const id of others) await errorOf(await g.api.get(apiKey, `/v1/generations/${id}`), 410);
          const expired = await errorOf(await g.api.get(apiKey, `/v1/generations/${old}`), 410);
          assert.deepEqual(expired, {
            type: 'not_found_error',
            code: 'generation_expired',
            message: `Generation '${old}' has expired: its organization keeps renders for a limited time, and it was deleted with its images.`,
            param: 'id',
          });
          assert.equal(
            (await errorOf(await g.api.post(apiKey, g.validBody(), { 'idempotency-key': key }), 410)).code,
            'generation_expired',
          );
          assert.equal((await g.api.get(apiKey, `/v1/generations/${young}`)).status, 200, 'a young render stays');
          await waitFor(
            'the expired images to answer 404',
            async () => (await statuses(urls)).every((status) => status === 404),
            15_000,
          );
          assert.equal((await sweep()).deleted, 0, 'a second sweep finds nothing');
        } finally {
          offsetMs = 0;
          await fetch(url('/v1/organization'), {
            method: 'PATCH',
            headers: { ...bearer(apiKey), 'content-type': 'application/json' },
            body: JSON.stringify({ renderRetentionDays: null }),
          });
        }
      });
    });
  }
}
