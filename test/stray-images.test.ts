/**
 * Images a render stored but never committed (a store that failed halfway, a commit that failed)
 * are deleted: at once by the run itself when it knows nothing refers to them, else by the
 * stray-image job that the run ending the generation queues.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { startWorkers } from '../core/lifecycle.ts';
import { PostponeJob, RetryJob } from '../core/ports/job-queue.ts';
import type { QueuedJob } from '../core/domain/job.ts';
import { renderJobKind } from '../core/services/generations.ts';
import { strayImagesJobKind } from '../core/services/stray-images.ts';
import { startGenerationApp, type GenerationApp } from './support/generation-app.ts';
import { jobsOf } from '../plugins/queue-db/tables.ts';

describe('images no run committed', () => {
  let g: GenerationApp;
  let apiKey: string;
  let organizationId: string;
  const restores: (() => void)[] = [];

  /** Replaces `object[name]` until the test ends. */
  function patch<T extends object, K extends keyof T>(object: T, name: K, replacement: T[K]) {
    const original = object[name];
    object[name] = replacement;
    restores.push(() => void (object[name] = original));
  }

  before(async () => {
    g = await startGenerationApp({
      workers: false,
      config: { render: { maxAttempts: 3, retryBaseDelayMs: 20, strayImagesAfterMs: 0 } },
    });
    const created = await g.app.tenants.createOrganization({ name: 'Strays', credits: 100 });
    apiKey = created.apiKey.key;
    organizationId = created.organization.id;
  });
  afterEach(() => {
    for (const restore of restores.splice(0).reverse()) restore();
  });
  after(() => g.close());

  const cradle = () => g.app.container.cradle;
  const create = async () => (await (await g.api.post(apiKey, g.validBody())).json()).id as string;
  /** Run number `attempts` of a render job, every earlier run of which failed. */
  const renderJob = (generationId: string, attempts: number): QueuedJob => ({
    id: `job_${generationId}_${attempts}`,
    kind: renderJobKind,
    payload: { generationId, organizationId },
    attempts,
    failures: attempts - 1,
  });
  const stored = async (generationId: string) => {
    const keys: string[] = [];
    for await (const { key } of cradle().cdn.list(`gen/${generationId}/`, 'public')) keys.push(key);
    return keys.sort();
  };
  const folders = (keys: string[]) => [...new Set(keys.map((key) => key.slice(0, key.lastIndexOf('/') + 1)))];
  const strayJobs = () => jobsOf(cradle().persistence).pending([strayImagesJobKind]);
  /** The first transaction of a render is its completion (or failure): it fails as a connection lost at COMMIT would. */
  function failNextTransaction() {
    const { persistence } = cradle();
    const transaction = persistence.transaction.bind(persistence);
    patch(persistence, 'transaction', (async (work: Parameters<typeof transaction>[0]) => {
      for (const restore of restores.splice(0)) restore();
      return transaction(async (tx) => {
        await work(tx);
        throw new Error('connection lost at COMMIT');
      });
    }) as typeof transaction);
  }
  const folderOf = (imageUrl: string) => new URL(imageUrl).pathname.replace('/cdn/', '').replace(/[^/]+$/, '');

  it('a store that fails halfway deletes what it had stored; the next attempt completes', async () => {
    const id = await create();
    let puts = 0;
    const { cdn } = cradle();
    const put = cdn.put.bind(cdn);
    patch(cdn, 'put', async (...args) => {
      if (++puts === 4) throw new Error('disk full');
      return put(...args);
    });
    await assert.rejects(cradle().renderGeneration(renderJob(id, 1)), RetryJob);
    assert.ok(puts >= 4, 'the failure came part-way through storing');
    assert.deepEqual(await stored(id), [], 'nothing of the failed run is left');

    for (const restore of restores.splice(0)) restore();
    await cradle().renderGeneration(renderJob(id, 2));
    const done = await (await g.api.get(apiKey, `/v1/generations/${id}`)).json();
    assert.equal(done.status, 'complete');
    assert.deepEqual(folders(await stored(id)), [folderOf(done.imageUrl)]);
  });

  it('a generation that fails after such a commit deletes the images too', async () => {
    const id = await create();
    const strayJobsBefore = await strayJobs();
    failNextTransaction();
    // The last attempt: its commit fails, so the generation fails, with the images still stored.
    await cradle().renderGeneration(renderJob(id, 3));
    const failed = await (await g.api.get(apiKey, `/v1/generations/${id}`)).json();
    assert.equal(failed.status, 'failed');
    assert.equal(failed.imageUrl, null);
    assert.equal(await strayJobs(), strayJobsBefore + 1, 'the failing run queued a stray-image job');
    const { sweepStrayImages } = cradle();
    await sweepStrayImages({
      id: 'job_sweep',
      kind: strayImagesJobKind,
      payload: { generationId: id, organizationId },
      attempts: 1,
      failures: 0,
    });
    assert.deepEqual(await stored(id), []);
  });

  it('touches nothing when it cannot tell which images the generation refers to', async () => {
    const id = await create();
    await cradle().renderGeneration(renderJob(id, 1));
    const before = await stored(id);
    assert.equal(before.length, 7);
    const { cdn, sweepStrayImages } = cradle();
    // As after moving the public images to another domain: no listed key has the stored URL.
    const publicUrl = cdn.publicUrl.bind(cdn);
    patch(cdn, 'publicUrl', (key: string) => publicUrl(key).replace('http://', 'https://elsewhere.example/'));
    await sweepStrayImages({
      id: 'job_sweep',
      kind: strayImagesJobKind,
      payload: { generationId: id, organizationId },
      attempts: 1,
      failures: 0,
    });
    assert.deepEqual(await stored(id), before);
  });
  it('waits out storage failing, however long, instead of giving the job up with the images left', async () => {
    const id = await create();
    await cradle().renderGeneration(renderJob(id, 1));
    const { cdn, sweepStrayImages } = cradle();
    const strayKey = `gen/${id}/strayrun/list.jpg`;
    await cdn.put(strayKey, (await cdn.get((await stored(id))[0]!, 'public'))!.body, {
      contentType: 'image/jpeg',
      visibility: 'public',
    });
    const sweep = (attempts: number) =>
      sweepStrayImages({
        id: 'job_sweep',
        kind: strayImagesJobKind,
        payload: { generationId: id, organizationId },
        attempts,
        failures: 0,
      });
    patch(cdn, 'list', () => {
      throw new Error('connect ECONNREFUSED');
    });
    // Far past the queue's maxAttempts: a postponement is not a failure, and never gives the job up.
    await assert.rejects(sweep(40), (error) => error instanceof PostponeJob && error.delayMs === 60_000);
    for (const restore of restores.splice(0)) restore();
    await sweep(41);
    assert.ok(!(await stored(id)).includes(strayKey), 'deleted once storage answered');
    assert.equal((await stored(id)).length, 7);
  });

  it("removes on the local CDN the temp files of a dead run's writes its process never finished, and their folders", async () => {
    const id = await create();
    await cradle().renderGeneration(renderJob(id, 1));
    const { cdn, config, sweepStrayImages } = cradle();
    const generationDir = path.join(config.dataDir, 'cdn', 'public', 'gen', id);
    const files = () =>
      readdirSync(generationDir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => path.relative(generationDir, path.join(entry.parentPath, entry.name)))
        .sort();
    const committed = files();
    // A run killed mid-write: one image stored, the next one's temp file never renamed; and a run
    // killed at its first write, whose folder holds nothing but a temp file. The job runs
    // render.strayImagesAfterMs (10 min) after the generation ended, so they are older than that.
    await cdn.put(`gen/${id}/deadrun/list.jpg`, (await cdn.get(`gen/${id}/${committed[0]!}`, 'public'))!.body, {
      contentType: 'image/jpeg',
      visibility: 'public',
    });
    const elevenMinutesAgo = new Date(Date.now() - 11 * 60_000);
    mkdirSync(path.join(generationDir, 'firstwrite'));
    for (const temp of ['deadrun/detail.jpg.a1b2c3d4e5f6~', 'firstwrite/original.png.0123456789ab~']) {
      writeFileSync(path.join(generationDir, temp), Buffer.alloc(1000));
      utimesSync(path.join(generationDir, temp), elevenMinutesAgo, elevenMinutesAgo);
    }
    await sweepStrayImages({
      id: 'job_sweep',
      kind: strayImagesJobKind,
      payload: { generationId: id, organizationId },
      attempts: 1,
      failures: 0,
    });
    assert.deepEqual(files(), committed, 'only the committed run’s images are left');
    assert.deepEqual(readdirSync(generationDir), [committed[0]!.split(path.sep)[0]], 'and only its folder');
  });

  it("never keeps or brings back a deleted generation's images: its stray-image job deletes every folder, the purge finds nothing left", async () => {
    const id = await create();
    failNextTransaction();
    await assert.rejects(cradle().renderGeneration(renderJob(id, 1)), RetryJob);
    await cradle().renderGeneration(renderJob(id, 2));
    assert.equal(folders(await stored(id)).length, 2, 'the committed run and the orphaned one');
    const deleted = await fetch(`${g.app.url}/v1/generations/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${apiKey}` },
    });
    assert.equal(deleted.status, 200);
    // The stray-image job the completion queued runs first: with no live URL to keep, it keeps nothing.
    const { sweepStrayImages, purgeGenerationImages } = cradle();
    await sweepStrayImages({
      id: 'job_sweep',
      kind: strayImagesJobKind,
      payload: { generationId: id, organizationId },
      attempts: 1,
      failures: 0,
    });
    assert.deepEqual(await stored(id), []);
    await purgeGenerationImages({
      id: 'job_purge',
      kind: 'purge_generation_images',
      payload: { organizationId, generationIds: [id] },
      attempts: 1,
      failures: 0,
    });
    assert.deepEqual(await stored(id), [], 'deleting what is gone already is fine');
    // A purge never touches a live generation's images, whatever its payload says.
    const live = await create();
    await cradle().renderGeneration(renderJob(live, 1));
    await purgeGenerationImages({
      id: 'job_purge_live',
      kind: 'purge_generation_images',
      payload: { organizationId, generationIds: [live] },
      attempts: 1,
      failures: 0,
    });
    assert.equal((await stored(live)).length, 7);
  });

  // Last: it starts the workers, which would then also render the other tests' generations.
  it('a commit that failed leaves its images until the generation ends; the job that run queues then deletes them', async () => {
    const id = await create();
    const strayJobsBefore = await strayJobs();
    failNextTransaction();
    await assert.rejects(cradle().renderGeneration(renderJob(id, 1)), RetryJob);
    const orphaned = folders(await stored(id));
    assert.equal(orphaned.length, 1, 'the images of a commit that may have happened are kept');
    assert.equal((await (await g.api.get(apiKey, `/v1/generations/${id}`)).json()).status, 'processing');

    await cradle().renderGeneration(renderJob(id, 2));
    const done = await (await g.api.get(apiKey, `/v1/generations/${id}`)).json();
    assert.equal(done.status, 'complete');
    assert.equal(folders(await stored(id)).length, 2, 'both runs’ images, until the job runs');
    assert.equal(await strayJobs(), strayJobsBefore + 1, 'the completing (second) attempt queued a stray-image job');

    await startWorkers(cradle());
    const deadline = Date.now() + 20_000;
    while ((await strayJobs()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    assert.equal(await strayJobs(), 0, 'the job ran');
    const kept = await stored(id);
    assert.deepEqual(folders(kept), [folderOf(done.imageUrl)], 'only the committed run’s images remain');
    assert.equal(kept.length, 7, 'the original and six variants');
    for (const url of [done.imageUrl, done.imageVariants.list.url]) assert.equal((await fetch(url)).status, 200, url);
  });
});
