import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import type { Persistence } from '../core/ports/persistence/index.ts';
import { oncePerCluster } from '../core/services/cluster-schedule.ts';
import { openPostgres } from '../plugins/store-kysely/postgres.ts';
import { openSqlite } from '../plugins/store-kysely/sqlite.ts';
import { waitFor } from '../kit/testing/wait-for.ts';
import { Cluster } from './support/cluster.ts';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';
import { queueTables, schedulesOf } from '../plugins/queue-db/tables.ts';

let postgres: PostgresTestServer | undefined;
const dirs: string[] = [];
after(async () => {
  await postgres?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const tempDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-schedule-'));
  dirs.push(dir);
  return dir;
};

/** Two handles on one fresh, migrated database of each kind: two processes' pools, as far as the database can tell. */
const databases: Record<string, () => Promise<[Persistence, Persistence]>> = {
  sqlite: async () => {
    const file = path.join(tempDir(), 'schedule.db');
    const first = openSqlite(file);
    await first.migrate();
    // In one process both handles share one connection (see openSqlite); SQLite serializes writers anyway.
    return [first, openSqlite(file)];
  },
  postgres: async () => {
    postgres ??= await startPostgresTestServer();
    const url = await postgres.createDatabase();
    const first = openPostgres(url);
    await first.migrate();
    return [first, openPostgres(url)];
  },
};

for (const [name, open] of Object.entries(databases)) {
  describe(`claimRun on ${name}`, () => {
    it('gives a run to exactly one of many concurrent claims, and the next only after its interval', async () => {
      const [one, other] = await open();
      try {
        // Long enough that 20 claims, queued on one row lock on a loaded host, all finish inside it:
        // a claim that waited past the interval would rightly win the next run.
        const claimAll = () =>
          Promise.all(
            Array.from({ length: 20 }, (_, index) => schedulesOf(index % 2 ? one : other).claimRun('sweep', 1_500)),
          );
        const first = await claimAll();
        assert.equal(
          first.filter(Boolean).length,
          1,
          'the first run goes to one claim of 20 (the row did not exist yet)',
        );
        assert.equal((await claimAll()).filter(Boolean).length, 0, 'nobody runs it again before its interval');
        // Once the interval has passed, again one claim of many wins.
        let second: boolean[] = [];
        await waitFor('the next run to be due', async () => (second = await claimAll()).some(Boolean), 5_000);
        assert.equal(second.filter(Boolean).length, 1);
        assert.equal(await schedulesOf(one).claimRun('another-task', 60_000), true, 'each task has its own schedule');
      } finally {
        await one.close();
        await other.close();
      }
    });

    it('oncePerCluster runs a task only where the claim succeeded', async () => {
      const [one, other] = await open();
      try {
        let runs = 0;
        const task = { name: 'counted', intervalMs: 60_000, run: async () => void (runs += 1) };
        const here = oncePerCluster(queueTables(one), task);
        const there = oncePerCluster(queueTables(other), task);
        await Promise.all([here.run(), there.run(), here.run(), there.run()]);
        assert.equal(runs, 1);
        assert.equal(here.intervalMs, 60_000, 'the wrapper keeps the task name and interval');
      } finally {
        await one.close();
        await other.close();
      }
    });
  });
}

describe('two worker processes on one Postgres', () => {
  it('run a periodic task once per interval between them, and either one alone keeps running it', {
    timeout: 120_000,
  }, async (t) => {
    postgres ??= await startPostgresTestServer();
    const url = await postgres.createDatabase();
    const dir = tempDir();
    const intervalMs = 500;
    // The retention sweep, made to delete exactly one old dead job per run: deleted rows count runs.
    const config = path.join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        retention: {
          sweepIntervalMs: intervalMs,
          batchSize: 1,
          maxBatchesPerRun: 1,
          eventsDays: null,
          idempotencyKeysDays: null,
          deadJobsDays: 1,
        },
      }),
    );
    const env = { DATABASE_URL: url, VISUALIZER_DATA_DIR: dir, VISUALIZER_CONFIG: config, PORT: '0' };
    const cluster = new Cluster(env);
    await cluster.run(['migrate']);

    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // Triggers of the test's own log each run's delete, and each claim of a run with the database's
      // time the claim compared (its next run time less the interval's share, so the time itself).
      await client.query(`
        create table run_log (at timestamptz not null default clock_timestamp());
        create function log_run() returns trigger language plpgsql as $$ begin insert into run_log default values; return old; end $$;
        create trigger log_run after delete on dead_jobs for each row execute function log_run();
        create table claim_log (next_run_at bigint not null);
        create function log_claim() returns trigger language plpgsql as $$ begin insert into claim_log values (new.next_run_at); return new; end $$;
        create trigger log_claim after insert or update on scheduled_runs for each row when (new.name = 'prune-retention') execute function log_claim();
        insert into dead_jobs (id, kind, payload, attempts, failures, last_error, created_at, died_at)
          select 'job_' || n, 'test.old', '{}', 10, 10, 'boom', 0, 0 from generate_series(1, 1000) n;`);
      const runs = async () => Number((await client.query('select count(*) as n from run_log')).rows[0].n);

      const first = await cluster.worker('first');
      await waitFor('the first worker to run the task', async () => (await runs()) >= 2, 30_000);
      const second = await cluster.worker('second');
      const together = await runs();
      await waitFor('runs while both workers tick', async () => (await runs()) >= together + 8, 30_000);
      await first.stop();
      const alone = await runs();
      await waitFor('the second worker to keep running it alone', async () => (await runs()) >= alone + 2, 30_000);
      await second.stop();

      // Never two claims within one interval (less its tolerance of a tenth), whichever process made
      // them. Claims, not the deletes: a run's delete follows its claim after a delay that a loaded
      // host stretches for one run and not the next, which says nothing about the schedule.
      const claims = (
        await client.query<{ next_run_at: string }>('select next_run_at from claim_log order by next_run_at')
      ).rows.map((row) => Number(row.next_run_at));
      const gaps = claims.slice(1).map((at, index) => at - claims[index]!);
      assert.ok(gaps.length >= 11, `${claims.length} claims were logged`);
      const shortest = Math.min(...gaps);
      t.diagnostic(
        `${claims.length} claims; gaps between them ${shortest}–${Math.max(...gaps)} ms at a ${intervalMs} ms interval`,
      );
      assert.ok(
        shortest >= intervalMs * 0.9,
        `two claims came ${shortest} ms apart; the interval is ${intervalMs} ms (gaps: ${gaps.join(', ')})`,
      );
      const deleted = await runs();
      assert.ok(deleted <= claims.length, `${deleted} runs for ${claims.length} claims`);
      const left = Number((await client.query('select count(*) as n from dead_jobs')).rows[0].n);
      assert.equal(left, 1000 - deleted, 'each run deleted one row, and only runs deleted rows');
    } finally {
      await cluster.stopAll();
      await client.end();
    }
  });
});
