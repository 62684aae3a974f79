import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { silentLogger } from '../core/logger.ts';
import type { Persistence } from '../core/ports/persistence/index.ts';
import { waitFor } from '../kit/testing/wait-for.ts';
import { randomIds } from '../plugins/ids-random/index.ts';
import { createDbQueue } from '../plugins/queue-db/db-queue.ts';
import { openPostgres } from '../plugins/store-kysely/postgres.ts';
import { openSqlite } from '../plugins/store-kysely/sqlite.ts';
import { cli } from './support/cli.ts';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';
import { jobsOf } from '../plugins/queue-db/tables.ts';

const clock = { now: () => Date.now() };

let postgres: PostgresTestServer | undefined;
const dirs: string[] = [];
after(async () => {
  await postgres?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A migrated database and the environment under which the CLI (another process) reaches it. */
const databases: Record<string, () => Promise<{ persistence: Persistence; env: Record<string, string> }>> = {
  sqlite: async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-dead-'));
    dirs.push(dir);
    const persistence = openSqlite(path.join(dir, 'visualizer.db'));
    await persistence.migrate();
    return { persistence, env: { VISUALIZER_DATA_DIR: dir } };
  },
  postgres: async () => {
    postgres ??= await startPostgresTestServer();
    const url = await postgres.createDatabase();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-dead-'));
    dirs.push(dir);
    const persistence = openPostgres(url);
    await persistence.migrate();
    return { persistence, env: { DATABASE_URL: url, VISUALIZER_DATA_DIR: dir } };
  },
};

const json = (stdout: string) => JSON.parse(stdout);

for (const [name, open] of Object.entries(databases)) {
  describe(`dead letters on ${name}`, () => {
    it('keeps a job given up as a dead letter that the CLI lists and retries, and the retried job runs', {
      timeout: 90_000,
    }, async () => {
      const { persistence, env } = await open();
      const queue = createDbQueue(
        { persistence, clock, ids: randomIds, logger: silentLogger },
        { leaseMs: 30_000, pollIntervalMs: 50, maxAttempts: 2 },
      );
      try {
        let healed = false;
        const runs: unknown[] = [];
        await queue.work(
          {
            'test.flaky': async (job) => {
              runs.push(job.payload);
              if (!healed) throw new Error('engine exploded');
            },
          },
          { concurrency: 1 },
        );
        await persistence.transaction((tx) =>
          queue.enqueue(tx, { kind: 'test.flaky', payload: { order: 42 }, runAt: clock.now(), createdAt: clock.now() }),
        );
        queue.notify();
        await waitFor(
          'the job to be given up',
          async () => (await jobsOf(persistence).listDead({ limit: 10 })).length === 1,
          30_000,
        );
        assert.equal(await queue.pending(['test.flaky']), 0, 'a dead job is no longer queued');
        assert.equal(runs.length, 2, 'given up after maxAttempts (2) failures');

        const listed = await cli(['jobs', 'dead', '--json'], env);
        assert.equal(listed.code, 0, listed.stderr);
        const [dead] = json(listed.stdout);
        assert.equal(dead.kind, 'test.flaky');
        assert.equal(dead.failures, 2);
        assert.equal(dead.lastError, 'engine exploded');
        assert.deepEqual(dead.payload, { order: 42 });
        assert.deepEqual(
          json((await cli(['jobs', 'dead', '--kind', 'test.other', '--json'], env)).stdout),
          [],
          '--kind narrows the list',
        );
        const table = await cli(['jobs', 'dead'], env);
        assert.match(
          table.stdout,
          new RegExp(`${dead.id}\\s+test\\.flaky\\s+2\\s`),
          'the table names the job, its kind and failures',
        );

        const usage = await cli(['jobs', 'retry'], env);
        assert.equal(usage.code, 2, 'retry needs --id or --all');

        healed = true;
        const retried = await cli(['jobs', 'retry', '--id', dead.id, '--json'], env);
        assert.equal(retried.code, 0, retried.stderr);
        assert.deepEqual(json(retried.stdout).retried, [{ id: dead.id, kind: 'test.flaky' }]);
        await waitFor(
          'the retried job to run',
          async () => runs.length === 3 && (await queue.pending(['test.flaky'])) === 0,
          30_000,
        );
        assert.deepEqual(runs[2], { order: 42 }, 'with its payload');
        assert.deepEqual(await jobsOf(persistence).listDead({ limit: 10 }), [], 'no longer dead');

        const again = await cli(['jobs', 'retry', '--id', dead.id], env);
        assert.equal(again.code, 2);
        assert.match(again.stderr, /No dead job/);
      } finally {
        await queue.stop();
        await persistence.close();
      }
    });
  });
}
