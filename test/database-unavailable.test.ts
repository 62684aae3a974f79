/**
 * A database that cannot answer now (Postgres unreachable, SQLite locked by another process past
 * the busy timeout) gets a 503 `database_unavailable` with `Retry-After`, not a 500; nothing half
 * done is left, and once the database is back a create retried with its Idempotency-Key is made once.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import type { Repositories } from '../core/ports/persistence/index.ts';
import { renderJobKind } from '../core/services/generations.ts';
import { openPostgres } from '../plugins/store-kysely/postgres.ts';
import { photoJpeg, startGenerationApp, type GenerationApp } from './support/generation-app.ts';
import { cuttableRelay } from './support/cuttable-relay.ts';
import { errorOf } from './support/databases.ts';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';

/** The same outage story on each database: while it lasts, and after. */
function outageSuite(
  name: string,
  setup: () => Promise<{
    g: GenerationApp;
    outage(): Promise<void>;
    recover(): Promise<void>;
    readsDuringOutage: number;
  }>,
) {
  describe(`an unavailable database (${name})`, () => {
    let g: GenerationApp;
    let outage: () => Promise<void>;
    let recover: () => Promise<void>;
    let readsDuringOutage: number;
    before(async () => ({ g, outage, recover, readsDuringOutage } = await setup()));
    after(() => g?.close());

    it('answers 503 database_unavailable with Retry-After; after it, a retried create is made once', async () => {
      const { apiKey } = await g.app.tenants.createOrganization({ name: 'Outage', credits: 10 });
      const key = apiKey.key;
      const idempotencyKey = `outage-${name.replace(/\W+/g, '-')}`;
      await outage();
      try {
        const refused = await g.api.post(key, g.validBody(), { 'idempotency-key': idempotencyKey });
        const error = await errorOf(refused, 503);
        assert.equal(refused.headers.get('retry-after'), '1');
        assert.ok(refused.headers.get('x-request-id'));
        assert.equal(error.type, 'api_error');
        assert.equal(error.code, 'database_unavailable');
        assert.match(error.message, /Retry/);
        assert.equal((await g.api.get(key, '/v1/generations')).status, readsDuringOutage);
      } finally {
        await recover();
      }
      const made = await g.api.post(key, g.validBody(), { 'idempotency-key': idempotencyKey });
      assert.equal(made.status, 202, await made.clone().text());
      const replayed = await g.api.post(key, g.validBody(), { 'idempotency-key': idempotencyKey });
      assert.equal(replayed.status, 200);
      assert.equal((await replayed.json()).id, (await made.json()).id);
      const list = await (await g.api.get(key, '/v1/generations')).json();
      assert.equal(list.data.length, 1, 'the refused create left nothing behind');
      assert.equal((await (await g.api.get(key, '/v1/credits')).json()).balance, 9, 'charged once');
    });

    it('postpones a render that meets it, even on its last attempt, instead of failing the generation', async () => {
      const { apiKey, organization } = await g.app.tenants.createOrganization({ name: 'Render outage', credits: 10 });
      const { id } = await (await g.api.post(apiKey.key, g.validBody())).json();
      const { renderGeneration, persistence, config } = g.app.container.cradle;
      // Every earlier run failed, so the first of these is the render's last retry; the outage's run is not a failure.
      const lastRetry = config.render.maxAttempts - 1;
      const job = (attempts: number) => ({
        id: `job_${id}`,
        kind: renderJobKind,
        payload: { generationId: id, organizationId: organization.id },
        attempts,
        failures: lastRetry,
      });
      await outage();
      try {
        const thrown = await renderGeneration(job(config.render.maxAttempts)).then(
          () => assert.fail('the render finished during the outage'),
          (error: unknown) => error,
        );
        // The queue retries such an error for as long as the outage lasts (job-queue contract).
        assert.ok(persistence.isUnavailable(thrown), String(thrown));
      } finally {
        await recover();
      }
      assert.equal((await (await g.api.get(apiKey.key, `/v1/generations/${id}`)).json()).status, 'processing');
      await renderGeneration(job(config.render.maxAttempts + 1));
      assert.equal((await (await g.api.get(apiKey.key, `/v1/generations/${id}`)).json()).status, 'complete');
    });
  });
}

outageSuite('sqlite, locked by another process', async () => {
  const g = await startGenerationApp({
    workers: false,
    config: { pluginOptions: { 'store-sqlite': { busyTimeoutMs: 200 } } },
  });
  const holder = new BetterSqlite3(path.join(g.app.container.cradle.config.dataDir, 'visualizer.db'));
  const close = g.close;
  return {
    g: { ...g, close: async () => (holder.close(), close()) },
    // Another process's long write transaction: writers wait for it past the busy timeout.
    outage: async () => void holder.exec('BEGIN IMMEDIATE'),
    recover: async () => void holder.exec('ROLLBACK'),
    readsDuringOutage: 200, // WAL: readers never wait for a writer
  };
});

let postgres: PostgresTestServer | undefined;
after(async () => postgres?.stop());

outageSuite('postgres, server unreachable', async () => {
  postgres ??= await startPostgresTestServer();
  const url = new URL(await postgres.createDatabase());
  const relay = await cuttableRelay({ host: url.hostname, port: Number(url.port) });
  url.port = String(relay.port);
  const g = await startGenerationApp({
    workers: false,
    env: { DATABASE_URL: url.href },
    config: { pluginOptions: { 'store-postgres': { connectTimeoutMs: 1_000 } } },
  });
  const close = g.close;
  return {
    g: { ...g, close: async () => (await close(), await relay.close()) },
    outage: () => relay.cut(),
    recover: () => relay.restore(),
    readsDuringOutage: 503,
  };
});

describe('a Postgres connection lost mid-transaction', () => {
  it('fails the transaction as unavailable, without an uncaught error, and the pool recovers', async () => {
    postgres ??= await startPostgresTestServer();
    const url = new URL(await postgres.createDatabase());
    const relay = await cuttableRelay({ host: url.hostname, port: Number(url.port) });
    url.port = String(relay.port);
    const persistence = openPostgres(url.href, { connectTimeoutMs: 1_000 });
    try {
      await persistence.migrate();
      let inside!: () => void;
      const entered = new Promise<void>((resolve) => (inside = resolve));
      // The connection is checked out of the pool, between two statements, when the server goes.
      const transaction = persistence.transaction(async (tx) => {
        await tx.generations.statusOf('agen_before');
        inside();
        await sleep(200);
        return tx.generations.statusOf('agen_after');
      });
      await entered;
      await relay.cut();
      const error = await transaction.then(
        () => assert.fail('the transaction committed'),
        (thrown: unknown) => thrown,
      );
      assert.ok(persistence.isUnavailable(error), String(error));
      await relay.restore();
      assert.equal(
        await persistence.generations.statusOf('agen_after'),
        null,
        'a fresh connection serves the next query',
      );
    } finally {
      await persistence.close();
      await relay.close();
    }
  });
});

describe('Postgres going away under load, with workers running', () => {
  it('answers every create 202 or 503, and after it every generation completes, charged once', {
    timeout: 120_000,
  }, async () => {
    postgres ??= await startPostgresTestServer();
    const url = new URL(await postgres.createDatabase());
    const relay = await cuttableRelay({ host: url.hostname, port: Number(url.port) });
    url.port = String(relay.port);
    const g = await startGenerationApp({
      env: { DATABASE_URL: url.href },
      config: {
        pluginOptions: {
          'store-postgres': { connectTimeoutMs: 1_000 },
          'queue-db': { pollIntervalMs: 50, leaseMs: 2_000 },
          'renderer-mock': { latencyMs: 50 },
        },
      },
    });
    try {
      const credits = 1_000_000;
      const { apiKey } = await g.app.tenants.createOrganization({ name: 'Load', credits });
      const statuses: number[] = [];
      const refusedKeys: string[] = [];
      const made = new Set<string>();
      let sent = 0;
      let running = true;
      const load = Promise.all(
        Array.from({ length: 2 }, async () => {
          while (running) {
            const key = `load-${sent++}`;
            const response = await g.api.post(apiKey.key, g.validBody(), { 'idempotency-key': key });
            statuses.push(response.status);
            if (response.status === 202) made.add((await response.json()).id);
            else {
              refusedKeys.push(key);
              await response.body?.cancel();
            }
            await sleep(50); // a steady stream, not a flood the renders could not keep up with
          }
        }),
      );
      await sleep(700);
      await relay.cut();
      await sleep(1_500);
      await relay.restore();
      await sleep(700);
      running = false;
      await load;

      assert.deepEqual(
        [...new Set(statuses)].sort(),
        [202, 503],
        'creates were answered before, during and after the outage, and only so',
      );
      // A 503 may still have committed (the answer to COMMIT lost): its key tells.
      for (const key of refusedKeys) {
        const response = await g.api.post(apiKey.key, g.validBody(), { 'idempotency-key': key });
        assert.ok(response.status === 200 || response.status === 202, `${key}: ${response.status}`);
        made.add((await response.json()).id);
      }
      const deadline = Date.now() + 90_000;
      const notComplete = async () => {
        const left: string[] = [];
        for (const status of ['processing', 'failed']) {
          const page = await (await g.api.get(apiKey.key, `/v1/generations?limit=100&status=${status}`)).json();
          left.push(...page.data.map((generation: { id: string }) => `${generation.id} ${status}`));
        }
        return left;
      };
      let pending = await notComplete();
      while (pending.length > 0 && Date.now() < deadline) {
        await sleep(200);
        pending = await notComplete();
      }
      assert.deepEqual(pending, [], 'every generation completed after the outage');
      const balance = (await (await g.api.get(apiKey.key, '/v1/credits')).json()).balance;
      assert.equal(balance, credits - made.size, 'each generation charged once, none refunded');
    } finally {
      await g.close();
      await relay.close();
    }
  });
});

describe('a create whose transaction may or may not have committed (sqlite)', () => {
  let g: GenerationApp;
  before(async () => (g = await startGenerationApp()));
  after(() => g.close());

  it('keeps the uploaded photo when the database failed, so the generation a retry replays can render', async () => {
    const { apiKey } = await g.app.tenants.createOrganization({ name: 'Lost answer', credits: 5 });
    const { persistence } = g.app.container.cradle;
    const transaction = persistence.transaction;
    // The create's commit happens, then its answer is lost, as with a connection cut at COMMIT. Only
    // the transaction that creates a generation is hit: a worker's claim may run one in between.
    persistence.transaction = async (work) => {
      let creates = false;
      const result = await transaction((tx) =>
        work(
          Object.create(tx, {
            generations: {
              value: {
                ...tx.generations,
                create: (generation) => ((creates = true), tx.generations.create(generation)),
              } satisfies Repositories['generations'],
            },
          }),
        ),
      );
      if (!creates) return result;
      persistence.transaction = transaction;
      throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
    };
    const body = g.validBody({ image: `data:image/jpeg;base64,${photoJpeg.toString('base64')}` });
    const lost = await g.api.post(apiKey.key, body, { 'idempotency-key': 'answer-lost' });
    assert.equal((await errorOf(lost, 503)).code, 'database_unavailable');
    const replayed = await g.api.post(apiKey.key, body, { 'idempotency-key': 'answer-lost' });
    assert.equal(replayed.status, 200, 'it had committed');
    const generation = await g.api.settled(apiKey.key, (await replayed.json()).id);
    assert.equal(generation.status, 'complete', JSON.stringify(generation.error));
  });

  it("answers 503, not 500, when a request loses its key's race to a transaction that then failed", async () => {
    const { apiKey } = await g.app.tenants.createOrganization({ name: 'Lost race', credits: 5 });
    const { persistence } = g.app.container.cradle;
    const transaction = persistence.transaction;
    // Binding the key fails as if a concurrent request had bound it, in a shared commit that then failed.
    persistence.transaction = (work) => {
      persistence.transaction = transaction;
      return transaction((tx) =>
        work(Object.create(tx, { idempotencyKeys: { value: { ...tx.idempotencyKeys, bind: async () => false } } })),
      );
    };
    const refused = await g.api.post(apiKey.key, g.validBody(), { 'idempotency-key': 'race-lost' });
    assert.equal((await errorOf(refused, 503)).code, 'database_unavailable');
    const made = await g.api.post(apiKey.key, g.validBody(), { 'idempotency-key': 'race-lost' });
    assert.equal(made.status, 202, 'nothing was bound: the retry creates');
  });
});
