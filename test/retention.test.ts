import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect } from '../plugins/store-kysely/kysely.ts';
import pg from 'pg';
import * as v from 'valibot';
import { configSchema, type Config } from '../config/schema.ts';
import { silentLogger } from '../core/logger.ts';
import type { JobQueue } from '../core/ports/job-queue.ts';
import type { Persistence } from '../core/ports/persistence/index.ts';
import { pruneRetention, renderRetentionSweep, retentionSweep } from '../core/services/retention.ts';
import { testIds } from '../kit/testing/ids.ts';
import { openPostgres } from '../plugins/store-kysely/postgres.ts';
import { ImmediateSqliteDialect, openSqlite } from '../plugins/store-kysely/sqlite.ts';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';
import { postgresPlansOf, sqlitePlansOf } from './support/statement-plans.ts';
import { queueTables } from '../plugins/queue-db/tables.ts';

const day = 24 * 3_600_000;
const now = Date.UTC(2026, 10, 24);
const clock = { now: () => now };

let postgres: PostgresTestServer | undefined;
const dirs: string[] = [];
after(async () => {
  await postgres?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Database {
  persistence: Persistence;
  /** A connection of the test's own, to write rows as they would be after weeks of traffic and to read what is left. */
  raw(): Kysely<any>;
}

const databases: Record<string, () => Promise<Database>> = {
  sqlite: async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-retention-'));
    dirs.push(dir);
    const file = path.join(dir, 'retention.db');
    const persistence = openSqlite(file);
    await persistence.migrate();
    return {
      persistence,
      raw: () => new Kysely({ dialect: new ImmediateSqliteDialect({ database: new BetterSqlite3(file) }) }),
    };
  },
  postgres: async () => {
    postgres ??= await startPostgresTestServer();
    const url = await postgres.createDatabase();
    const persistence = openPostgres(url);
    await persistence.migrate();
    return {
      persistence,
      raw: () => new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }) }),
    };
  },
};

/**
 * Old and recent rows of every kind retention touches: five old events whose deliveries ended (one
 * with two attempts each), an old event with a delivery still being retried, a recent event, old and
 * recent idempotency keys and dead jobs.
 */
async function seed(db: Kysely<any>) {
  const old = now - 40 * day;
  const recent = now - day;
  await db
    .insertInto('organizations')
    .values({ id: 'org_1', name: 'Shop', credit_balance: 0, created_at: old })
    .execute();
  await db
    .insertInto('webhook_endpoints')
    .values({
      id: 'we_1',
      organization_id: 'org_1',
      url: 'https://receiver.example/hook',
      enabled_events: '["*"]',
      status: 'enabled',
      secret: 's',
      created_at: old,
      updated_at: old,
    })
    .execute();
  const events: Array<{ id: string; at: number; deliveries: string[] }> = [
    ...Array.from({ length: 5 }, (_, index) => ({
      id: `evt_old${index}`,
      at: old + index,
      deliveries: [index % 2 ? 'failed' : 'succeeded'],
    })),
    { id: 'evt_retrying', at: old - 1, deliveries: ['failed', 'pending'] },
    { id: 'evt_recent', at: recent, deliveries: ['succeeded'] },
  ];
  for (const event of events) {
    await db
      .insertInto('events')
      .values({
        id: event.id,
        organization_id: 'org_1',
        type: 'generation.completed',
        body: '{"big":"body"}',
        created_at: event.at,
      })
      .execute();
    for (const [index, status] of event.deliveries.entries()) {
      const deliveryId = `del_${event.id}_${index}`;
      await db
        .insertInto('event_deliveries')
        .values({
          id: deliveryId,
          event_id: event.id,
          endpoint_id: 'we_1',
          status,
          attempt_count: 2,
          created_at: event.at,
          updated_at: event.at,
        })
        .execute();
      for (const attempt of [1, 2]) {
        await db
          .insertInto('delivery_attempts')
          .values({
            id: `att_${deliveryId}_${attempt}`,
            delivery_id: deliveryId,
            attempted_at: event.at + attempt,
            status_code: 500,
            duration_ms: 5,
          })
          .execute();
      }
    }
  }
  await db
    .insertInto('generations')
    .values({
      id: 'gen_1',
      organization_id: 'org_1',
      status: 'complete',
      mode: 'room',
      image_size: '1K',
      credits_charged: 1,
      source_image: 'x',
      products: '[]',
      created_at: old,
    })
    .execute();
  await db
    .insertInto('idempotency_keys')
    .values({ organization_id: 'org_1', key: 'old-key', generation_id: 'gen_1', created_at: old })
    .execute();
  await db
    .insertInto('idempotency_keys')
    .values({ organization_id: 'org_1', key: 'recent-key', generation_id: 'gen_1', created_at: recent })
    .execute();
  for (const [id, diedAt] of [
    ['job_dead_old', now - 100 * day],
    ['job_dead_recent', recent],
  ] as const) {
    await db
      .insertInto('dead_jobs')
      .values({
        id,
        kind: 'render',
        payload: '{}',
        attempts: 10,
        failures: 10,
        last_error: 'boom',
        created_at: diedAt,
        died_at: diedAt,
      })
      .execute();
  }
}

const ids = async (db: Kysely<any>, table: string, column = 'id') =>
  (await db.selectFrom(table).select(column).orderBy(column).execute()).map((row) => String(row[column]));

/** The persistence with each transaction's result recorded: a sweep's batches. */
function countingBatches(persistence: Persistence) {
  const batches: unknown[] = [];
  const counted: Persistence = {
    ...persistence,
    async transaction(work) {
      const result = await persistence.transaction(work);
      batches.push(result);
      return result;
    },
  };
  return { counted, batches };
}

const retentionConfig = (retention: Record<string, unknown>) => v.parse(configSchema, { retention });

for (const [name, open] of Object.entries(databases)) {
  describe(`retention on ${name}`, () => {
    it('deletes old events with their deliveries and attempts in bounded batches, keeping recent ones and any still being retried', async () => {
      const { persistence, raw } = await open();
      const db = raw();
      try {
        await seed(db);
        const { counted, batches } = countingBatches(persistence);
        // The defaults (30 days of events, keys for ever, 90 days of dead jobs) in batches of 2.
        const config = retentionConfig({ batchSize: 2 });
        assert.equal(config.retention.idempotencyKeysDays, null, 'idempotency keys are kept for ever by default');
        const report = await retentionSweep({
          persistence: counted,
          queue: queueTables(persistence),
          clock,
          config,
          logger: silentLogger,
        })();

        assert.deepEqual(report.events, { deleted: 5, batches: 3 }, 'five old events in batches of 2, 2 and 1');
        assert.deepEqual(
          report.idempotencyKeys,
          { deleted: 0, batches: 0 },
          'keys kept for ever are not even looked at',
        );
        assert.deepEqual(report.deadJobs, { deleted: 1, batches: 1 });
        assert.deepEqual(batches, [2, 2, 1, 1], 'one transaction per batch, none above the batch size');

        assert.deepEqual(await ids(db, 'events'), ['evt_recent', 'evt_retrying']);
        assert.deepEqual(
          await ids(db, 'event_deliveries'),
          ['del_evt_recent_0', 'del_evt_retrying_0', 'del_evt_retrying_1'],
          "a retrying delivery keeps its event and the event's other deliveries",
        );
        assert.equal(
          (await ids(db, 'delivery_attempts')).length,
          6,
          'the attempts of the deliveries kept, and no others',
        );
        assert.deepEqual(await ids(db, 'idempotency_keys', 'key'), ['old-key', 'recent-key']);
        assert.deepEqual(await ids(db, 'dead_jobs'), ['job_dead_recent']);

        assert.deepEqual(
          (
            await retentionSweep({
              persistence,
              queue: queueTables(persistence),
              clock,
              config,
              logger: silentLogger,
            })()
          ).events,
          { deleted: 0, batches: 1 },
          'a second sweep finds nothing',
        );
      } finally {
        await db.destroy();
        await persistence.close();
      }
    });

    it('deletes idempotency keys past a configured window, and stops a kind at maxBatchesPerRun', async () => {
      const { persistence, raw } = await open();
      const db = raw();
      try {
        await seed(db);
        const config = retentionConfig({
          idempotencyKeysDays: 7,
          deadJobsDays: null,
          batchSize: 1,
          maxBatchesPerRun: 2,
        });
        const report = await retentionSweep({
          persistence,
          queue: queueTables(persistence),
          clock,
          config,
          logger: silentLogger,
        })();
        assert.deepEqual(
          report.events,
          { deleted: 2, batches: 2 },
          'two batches of one, the rest left for the next sweep',
        );
        assert.deepEqual(report.idempotencyKeys, { deleted: 1, batches: 2 });
        assert.deepEqual(
          report.deadJobs,
          { deleted: 0, batches: 0 },
          'dead jobs kept for ever when deadJobsDays is null',
        );
        assert.deepEqual(await ids(db, 'idempotency_keys', 'key'), ['recent-key']);
        assert.equal((await ids(db, 'events')).length, 5, 'three old events wait for the next sweep');
        assert.deepEqual(await ids(db, 'dead_jobs'), ['job_dead_old', 'job_dead_recent']);
      } finally {
        await db.destroy();
        await persistence.close();
      }
    });

    it("deletes every organization's expired renders in a few bounded sweeps, however many organizations and whatever backlog comes first", async () => {
      const { persistence, raw } = await open();
      const db = raw();
      try {
        const old = now - 10 * day;
        const organization = (id: string, days: number | null) =>
          db
            .insertInto('organizations')
            .values({ id, name: id, credit_balance: 0, created_at: old, render_retention_days: days })
            .execute();
        const generation = (organizationId: string, index: number, createdAt: number) =>
          db
            .insertInto('generations')
            .values({
              id: `gen_${organizationId}_${index}`,
              organization_id: organizationId,
              status: 'complete',
              mode: 'room',
              image_size: '1K',
              credits_charged: 1,
              source_image: 'x',
              products: '[]',
              created_at: createdAt,
            })
            .execute();
        // First in the sweep's order, more organizations than a sweep has batches with nothing expired yet.
        const young = Array.from({ length: 5 }, (_, index) => `org_0_young${index}`);
        for (const id of young) {
          await organization(id, 30);
          await generation(id, 0, old);
        }
        // Then a backlog of 20, more than a sweep deletes (3 batches of 2).
        await organization('org_1_backlog', 1);
        for (let index = 0; index < 20; index += 1) await generation('org_1_backlog', index, old + index);
        // Then more organizations with one expired render each than a sweep has batches.
        const small = Array.from({ length: 7 }, (_, index) => `org_2_small${index}`);
        for (const id of small) {
          await organization(id, 1);
          await generation(id, 0, old);
        }
        await organization('org_3_forever', null);
        await generation('org_3_forever', 0, old);

        const { counted, batches } = countingBatches(persistence);
        const queue = { enqueue: async () => {}, notify: () => {} } as unknown as JobQueue;
        // The sweep reads only `retention` of the config.
        const config = retentionConfig({ batchSize: 2, maxBatchesPerRun: 3 }) as unknown as Config;
        const sweep = renderRetentionSweep({
          persistence: counted,
          clock,
          config,
          logger: silentLogger,
          ids: testIds,
          queue,
        });
        const live = async (organizationIds: string[]) =>
          Number(
            (
              await db
                .selectFrom('generations')
                .select((eb) => eb.fn.countAll().as('n'))
                .where('organization_id', 'in', organizationIds)
                .where('deleted_at', 'is', null)
                .executeTakeFirstOrThrow()
            ).n,
          );

        const deleted: number[] = [];
        for (let run = 0; run < 10 && (await live(['org_1_backlog', ...small])) > 0; run += 1) {
          batches.length = 0;
          const report = await sweep();
          assert.ok(
            report.batches <= 3 && batches.length <= 3,
            `sweep ${run + 1} is bounded: ${JSON.stringify(report)}, ${batches.length} transactions`,
          );
          deleted.push(report.deleted);
          if (run === 3)
            assert.equal(
              await live(small),
              0,
              'the small organizations are served within four sweeps, though the backlog came first',
            );
        }
        // Round-robin: the backlog's 6, the small ones 3 at a time, the last small one and the
        // backlog's next 4, then the backlog alone; organizations with nothing expired use no batch.
        assert.deepEqual(deleted, [6, 3, 3, 5, 6, 4]);
        assert.equal(await live(['org_1_backlog', ...small]), 0, 'every expired render is deleted');
        assert.equal(await live(young), young.length, 'young renders stay');
        assert.equal(await live(['org_3_forever']), 1, 'an organization that keeps renders for ever keeps them');
        batches.length = 0;
        assert.deepEqual(
          await sweep(),
          { deleted: 0, batches: 0, organizations: 13 },
          'a sweep that finds nothing uses no batch',
        );
        assert.equal(batches.length, 0, 'and no transaction');
      } finally {
        await db.destroy();
        await persistence.close();
      }
    });
  });
}

/** The scheduled task that runs both sweeps (`prune-retention`), on stand-ins: one sweep failing must not skip the other. */
describe('the scheduled retention task', () => {
  for (const failing of ['rows', 'renders'] as const) {
    it(`runs both sweeps when the ${failing} sweep fails, and logs its failure`, async () => {
      const swept = new Set<string>();
      const errors: Array<{ message: string; fields?: Record<string, unknown> }> = [];
      const sweepOf = (sweep: 'rows' | 'renders') => {
        swept.add(sweep);
        if (sweep === failing) throw new Error(`the ${sweep} sweep's database said no`);
      };
      const standIns = {
        queue: { notify: () => {} },
        persistence: {
          // The rows' sweep prunes in transactions; the renders' sweep first lists the organizations.
          transaction: async () => (sweepOf('rows'), 0),
          organizations: { withRenderRetention: async () => (sweepOf('renders'), []) },
        },
        clock,
        config: retentionConfig({}),
        logger: {
          ...silentLogger,
          error: (message: string, fields?: Record<string, unknown>) => void errors.push({ message, fields }),
        },
      } as unknown as Parameters<typeof pruneRetention>[0];
      await pruneRetention(standIns)();
      assert.deepEqual([...swept].sort(), ['renders', 'rows']);
      assert.equal(errors.length, 1, JSON.stringify(errors));
      assert.equal(errors[0]!.fields?.sweep, failing);
      assert.match(String(errors[0]!.fields?.error), new RegExp(`the ${failing} sweep's database said no`));
    });
  }
});

/** The pruning queries as the repositories send them, explained on each database: each must read an index by age. */
describe('retention queries', () => {
  const expected = ['events_by_age', 'idempotency_keys_by_age', 'dead_jobs_by_died_at'];
  const sweepAll = (persistence: Persistence) =>
    retentionSweep({
      persistence,
      queue: queueTables(persistence),
      clock,
      config: retentionConfig({ idempotencyKeysDays: 7 }),
      logger: silentLogger,
    })();
  const assertIndexed = (plans: string[]) => {
    for (const index of expected)
      assert.ok(
        plans.some((plan) => plan.includes(index)),
        `no pruning query uses ${index}:\n${plans.join('\n---\n')}`,
      );
  };

  it('use the indexes by age on SQLite', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-retention-plans-'));
    dirs.push(dir);
    assertIndexed(await sqlitePlansOf(path.join(dir, 'plans.db'), sweepAll, (sql) => / limit /.test(sql)));
  });

  it('use the indexes by age on Postgres', async () => {
    postgres ??= await startPostgresTestServer();
    assertIndexed(await postgresPlansOf(await postgres.createDatabase(), sweepAll, (sql) => / limit /.test(sql)));
  });
});
