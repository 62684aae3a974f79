import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { SHARED_CLUSTER_VARIABLE, startCluster, startPostgresTestServer } from './postgres-server.ts';

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

// A server the tests did not start for themselves: DATABASE_URL, or the run's shared cluster.
const externalUrl = /^postgres(ql)?:\/\//i.test(process.env.DATABASE_URL ?? '')
  ? process.env.DATABASE_URL
  : process.env[SHARED_CLUSTER_VARIABLE];

test('startPostgresTestServer gives isolated databases and cleans up after itself', async () => {
  const server = await startPostgresTestServer();
  let clusterDir: string | undefined;
  const names: string[] = [];
  try {
    const first = await server.createDatabase();
    const second = await server.createDatabase();
    assert.notEqual(first, second);
    names.push(...[first, second].map((url) => new URL(url).pathname.slice(1)));
    for (const url of [first, second]) {
      assert.match(url, /^postgres(ql)?:\/\/.*\/visualizer_test_[a-z0-9]+(\?|$)/);
      const { rows } = await withClient(url, (c) => c.query<{ one: number }>('select 1 as one'));
      assert.deepEqual(rows, [{ one: 1 }]);
    }

    await withClient(first, (c) => c.query('create table only_in_first (id int primary key)'));
    const regclass = (url: string) =>
      withClient(url, async (c) => (await c.query(`select to_regclass('only_in_first') as t`)).rows[0].t);
    assert.equal(await regclass(first), 'only_in_first');
    assert.equal(await regclass(second), null);

    if (!externalUrl) {
      // The throwaway cluster lives in <tmpdir>/visualizer-pg-*/data; remember it to check deletion.
      const dataDir = await withClient(
        first,
        async (c) => (await c.query('show data_directory')).rows[0].data_directory,
      );
      clusterDir = path.dirname(dataDir);
      assert.match(path.basename(clusterDir), /^visualizer-pg-/);
      assert.ok(existsSync(clusterDir));
    }
  } finally {
    await server.stop();
  }
  await server.stop(); // idempotent
  await assert.rejects(server.createDatabase(), /after stop/);

  if (clusterDir) {
    assert.equal(existsSync(clusterDir), false, `${clusterDir} should be deleted by stop()`);
  }
  if (externalUrl) {
    const leftovers = await withClient(
      externalUrl,
      async (c) => (await c.query('select datname from pg_database where datname = any($1)', [names])).rows,
    );
    assert.deepEqual(leftovers, [], 'stop() should drop the databases it created');
  }
});

test('a throwaway cluster, as each run or file without a server starts, is deleted by stop()', async () => {
  const cluster = await startCluster();
  let clusterDir: string;
  try {
    const dataDir = await withClient(
      cluster.adminUrl,
      async (c) => (await c.query('show data_directory')).rows[0].data_directory,
    );
    clusterDir = path.dirname(dataDir);
    assert.match(path.basename(clusterDir), /^visualizer-pg-/);
    assert.ok(existsSync(clusterDir));
  } finally {
    await cluster.stop();
  }
  assert.equal(existsSync(clusterDir), false, `${clusterDir} should be deleted by stop()`);
  await cluster.stop(); // idempotent
});
