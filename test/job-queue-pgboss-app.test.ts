import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../config/load.ts';
import { silentLogger } from '../core/logger.ts';
import { waitFor } from '../kit/testing/wait-for.ts';
import { createPgBossQueue } from '../plugins/queue-pgboss/pgboss-queue.ts';
import { openPostgres } from '../plugins/store-kysely/postgres.ts';
import { cuttableRelay } from './support/cuttable-relay.ts';
import { startGenerationApp, type GenerationApp } from './support/generation-app.ts';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';
import { jobsOf } from '../plugins/queue-db/tables.ts';

/** The whole app on Postgres with `VISUALIZER_QUEUE=pgboss`: the services' jobs go through pg-boss. */
describe('the app on the pgboss queue', () => {
  let postgres: PostgresTestServer;
  let g: GenerationApp;
  let key: string;

  before(async () => {
    postgres = await startPostgresTestServer();
    g = await startGenerationApp({
      env: { DATABASE_URL: await postgres.createDatabase(), VISUALIZER_QUEUE: 'pgboss' },
      // A poll far longer than a render: the job must start on the wake-up after the create commits.
      config: { pluginOptions: { 'queue-pgboss': { pollIntervalMs: 10_000 } } },
    });
    key = (await g.app.tenants.createOrganization({ name: 'Boss', credits: 100 })).apiKey.key;
  });
  after(async () => {
    await g?.close();
    await postgres?.stop();
  });

  it('selects the plugin by VISUALIZER_QUEUE', () => {
    assert.equal(loadConfig({ VISUALIZER_QUEUE: 'pgboss' }).plugins.queue, 'pgboss');
    assert.equal(loadConfig({}).plugins.queue, 'db', 'db stays the default');
  });

  it('renders a generation through pg-boss: the job is in pg-boss’s tables, sent in the create’s transaction', async () => {
    const response = await g.api.post(key, g.validBody());
    assert.equal(response.status, 202);
    const { id } = await response.json();
    const generation = await g.api.settled(key, id, 8_000); // well before the 10 s poll
    assert.equal(generation.status, 'complete');
    const { persistence, queue } = g.app.container.cradle;
    assert.equal(await jobsOf(persistence).pending(), 0, 'nothing went to the db queue’s table');
    const { rows } = await persistence.postgres!.query(
      `SELECT name, state, data FROM pgboss.job WHERE data->'payload'->>'generationId' = $1`,
      [id],
    );
    assert.deepEqual(
      rows.map((row) => [row.name, row.state]),
      [['render_generation', 'completed']],
      'one pg-boss job rendered it and was completed',
    );
    assert.equal(await queue.pending(), 0);
  });

  it('erases a visitor through pg-boss, whose kept job names the erasure, never the visitor', async () => {
    const created = await g.app.tenants.createOrganization({ name: 'Boss privacy', credits: 1 });
    const visitorId = 'v-boss-erased';
    const identified = await fetch(`${g.app.url}/api/collect`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({
        type: '$identify',
        storeId: created.store.id,
        visitorId,
        sessionId: 's-boss',
        userId: 'customer-boss',
      }),
    });
    assert.equal(identified.status, 202);
    const headers = { authorization: `Bearer ${created.apiKey.key}` };
    const erasure = await (await fetch(`${g.app.url}/v1/visitors/${visitorId}`, { method: 'DELETE', headers })).json();
    await waitFor(
      'the erasure complete',
      async () =>
        (await (await fetch(`${g.app.url}/v1/visitor-erasures/${erasure.id}`, { headers })).json()).status ===
        'complete',
    );
    const { persistence } = g.app.container.cradle;
    // pg-boss keeps completed jobs (then archives them) for days: their data must hold nothing personal.
    const { rows } = await persistence.postgres!.query(
      `SELECT name, state, data FROM pgboss.job WHERE name = 'erase_visitor'`,
    );
    assert.deepEqual(
      rows.map((row: { state: string; data: { payload: unknown } }) => [row.state, row.data.payload]),
      [['completed', { erasureId: erasure.id, organizationId: created.organization.id }]],
    );
    assert.ok(!JSON.stringify(rows).includes(visitorId) && !JSON.stringify(rows).includes('s-boss'));
  });

  it('reports queue depth by kind from pg-boss’s table (for /metrics)', async () => {
    const { persistence, queue } = g.app.container.cradle;
    // Two jobs due in an hour, one of them rolled back: only the committed one counts, as scheduled.
    await assert.rejects(
      persistence.transaction(async (tx) => {
        await queue.enqueue(tx, {
          kind: 'stats_probe',
          payload: {},
          runAt: Date.now() + 3_600_000,
          createdAt: Date.now(),
        });
        throw new Error('roll back');
      }),
      /roll back/,
    );
    await persistence.transaction((tx) =>
      queue.enqueue(tx, { kind: 'stats_probe', payload: {}, runAt: Date.now() + 3_600_000, createdAt: Date.now() }),
    );
    const stats = await queue.stats!();
    assert.deepEqual(
      stats.find((row) => row.kind === 'stats_probe'),
      { kind: 'stats_probe', due: 0, running: 0, scheduled: 1, lagMs: 0 },
    );
  });
});

/** pg-boss's first start (its schema) and the work after it, with the database away and back. */
describe('the pgboss queue across a database outage', () => {
  it('refuses to enqueue as unavailable while the database is away, and works once it is back', async () => {
    const postgres = await startPostgresTestServer();
    const url = new URL(await postgres.createDatabase());
    const relay = await cuttableRelay({ host: url.hostname, port: Number(url.port) });
    url.port = String(relay.port);
    const persistence = openPostgres(url.href, { connectTimeoutMs: 1_000 });
    const queue = createPgBossQueue(
      { persistence, clock: { now: () => Date.now() }, logger: silentLogger },
      {
        schema: 'pgboss',
        leaseMs: 30_000,
        pollIntervalMs: 50,
        maxAttempts: 3,
        maintenanceIntervalSeconds: 30,
        keepFailedDays: 1,
      },
    );
    try {
      await persistence.migrate();
      await relay.cut();
      const refused = await persistence
        .transaction((tx) =>
          queue.enqueue(tx, { kind: 'outage_probe', payload: 1, runAt: Date.now(), createdAt: Date.now() }),
        )
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      assert.ok(refused, 'the enqueue failed');
      assert.ok(persistence.isUnavailable(refused), `as unavailable (a 503), not a bug: ${String(refused)}`);
      // pg-boss's start (installing its schema) fails too; a later call must start it afresh.
      await assert.rejects(queue.pending(['outage_probe']), (error) => persistence.isUnavailable(error));
      await relay.restore();
      const ran: unknown[] = [];
      await queue.work({ outage_probe: async (job) => void ran.push(job.payload) }, { concurrency: 1 });
      await persistence.transaction((tx) =>
        queue.enqueue(tx, { kind: 'outage_probe', payload: 2, runAt: Date.now(), createdAt: Date.now() }),
      );
      queue.notify();
      await waitFor('the job to run after the outage', () => ran.length === 1);
      assert.deepEqual(ran, [2]);
    } finally {
      await queue.stop();
      await persistence.close();
      await relay.close();
      await postgres.stop();
    }
  });
});
