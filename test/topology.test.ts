import assert from 'node:assert/strict';
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import { connectionBudgetWarning } from '../cli/connection-budget.ts';
import { topologyFindings, type TopologyInput } from '../cli/topology.ts';
import type { ProcessRecord, ProcessRole } from '../core/ports/queue-tables/index.ts';
import { bin, startCli as start } from './support/cli.ts';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';

const run = promisify(execFile);

const record = (role: ProcessRole, hostname: string, details: Record<string, unknown> = {}): ProcessRecord => ({
  id: `proc_${role}_${hostname}`,
  hostname,
  role,
  pid: 1,
  startedAt: 0,
  seenAt: 0,
  details,
});

describe('topology findings', () => {
  const base: TopologyInput = {
    role: 'worker',
    hostname: 'a',
    database: 'postgres',
    cdn: 's3',
    limits: 'redis',
    live: [],
  };

  it('accept the multi-host deployment: Postgres, S3, shared limits, API-only processes and workers on several hosts', () => {
    const live = [
      record('serve-api-only', 'a'),
      record('serve-api-only', 'b'),
      record('worker', 'c'),
      record('worker', 'd'),
    ];
    assert.deepEqual(topologyFindings({ ...base, role: 'worker', hostname: 'c', live }), {
      refusal: undefined,
      warnings: [],
    });
    assert.deepEqual(topologyFindings({ ...base, role: 'serve-api-only', hostname: 'a', live }), {
      refusal: undefined,
      warnings: [],
    });
  });

  it('say nothing of hostnames on SQLite, whose file no other host can open', () => {
    const live = [record('serve', 'a', { workers: 4 }), record('worker', 'b')];
    assert.deepEqual(
      topologyFindings({ ...base, database: 'sqlite', cdn: 'local', limits: 'memory', hostname: 'b', live }),
      { refusal: undefined, warnings: [] },
    );
  });

  it('count a serve with no render workers as no worker', () => {
    const live = [record('serve-api-only', 'a'), record('serve', 'a', { workers: 0 })];
    const { warnings } = topologyFindings({ ...base, role: 'serve-api-only', live });
    assert.match(warnings.join('\n'), /No worker is running on this database/);
  });
});

describe('the connection budget', () => {
  const withConnections = (connections: number) => record('worker', 'a', { connections });

  it("warns when the live processes' pools together may open more than the server accepts, and says what to change", () => {
    const warning = connectionBudgetWarning([withConnections(10), withConnections(11), record('serve', 'b')], 20);
    assert.match(
      warning ?? '',
      /^The 2 processes on this database may open 21 connections together .* but the server accepts 20 from this role on this database: .* Lower pluginOptions\.store-postgres\.poolSize, .* PgBouncer in transaction mode/,
    );
  });

  it('says nothing when they fit, or behind a pooler (whose own limits the server cannot tell)', () => {
    assert.equal(connectionBudgetWarning([withConnections(10), withConnections(11)], 21), undefined);
    assert.equal(connectionBudgetWarning([withConnections(500)], undefined), undefined);
  });
});

describe('a role that Postgres allows 15 connections', () => {
  let postgres: PostgresTestServer;
  let dir = '';
  const role = `visualizer_budget_${process.pid}`;
  const children: ChildProcess[] = [];

  before(async () => {
    postgres = await startPostgresTestServer();
    dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-budget-'));
  });
  after(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await postgres.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts an API process (10 connections) quietly, then warns a worker that would bring the total to 21', async () => {
    const adminUrl = new URL(await postgres.createDatabase());
    const admin = new pg.Client({ connectionString: adminUrl.href });
    await admin.connect();
    try {
      // Superusers are held to no role limit: the processes connect as a role of their own.
      await admin.query(`DROP ROLE IF EXISTS ${role}`);
      await admin.query(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 15`);
      await admin.query(`ALTER DATABASE ${adminUrl.pathname.slice(1)} OWNER TO ${role}`);
      await admin.query(`ALTER SCHEMA public OWNER TO ${role}`);
    } finally {
      await admin.end();
    }
    const roleUrl = new URL(adminUrl);
    roleUrl.username = role;
    roleUrl.password = '';
    const env = { DATABASE_URL: roleUrl.href, VISUALIZER_DATA_DIR: dir, PORT: '0' };
    await run(bin, ['migrate'], { env: { ...process.env, ...env } });

    const api = start(['serve', '--api-only'], env);
    children.push(api.child);
    await api.printed(/listening on/);
    assert.doesNotMatch(api.output.stderr, /connections together/);

    const worker = start(['worker'], env);
    children.push(worker.child);
    await worker.printed(/worker running/);
    assert.match(
      worker.output.stderr,
      /Warning: The 2 processes on this database may open 21 connections together .* but the server accepts 15 from this role on this database/,
    );
    for (const child of [worker, api]) {
      child.child.kill('SIGTERM');
      assert.equal(await child.exited, 0);
    }
  });
});

describe('a deployment on Postgres with the local CDN, processes on two hosts', () => {
  let postgres: PostgresTestServer;
  let env: Record<string, string>;
  let dir = '';
  const children: ChildProcess[] = [];

  before(async () => {
    postgres = await startPostgresTestServer();
    dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-topology-'));
    env = { DATABASE_URL: await postgres.createDatabase(), VISUALIZER_DATA_DIR: dir, PORT: '0' };
    await run(bin, ['migrate'], { env: { ...process.env, ...env } });
  });
  after(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await postgres.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a worker on another host, warns an API process there, and says what to change', async () => {
    const api = start(['serve', '--api-only'], { ...env, VISUALIZER_HOSTNAME: 'host-a' });
    children.push(api.child);
    await api.printed(/listening on/);
    assert.match(
      api.output.stderr,
      /Warning: Single host only: the image CDN is 'local' .* every process of this deployment must run on this host \(host-a\)\. To run on several hosts, use VISUALIZER_CDN=s3/,
    );
    assert.match(
      api.output.stderr,
      /Warning: No worker is running on this database: renders and webhook deliveries wait until one starts\. Start 'visualizer worker' processes/,
    );

    const refused = start(['worker'], { ...env, VISUALIZER_HOSTNAME: 'host-b' });
    children.push(refused.child);
    assert.equal(await refused.exited, 1, refused.output.stderr);
    assert.match(
      refused.output.stderr,
      /^visualizer worker: The image CDN is 'local' \(files in this host's data directory\), but processes on other hosts \(host-a\) use the same database: .* Use S3-protocol storage behind a CDN \(VISUALIZER_CDN=s3, see docs\/operations\.md "S3 and a CDN"\) for every process, or run all processes on one host\.$/m,
    );
    assert.doesNotMatch(refused.output.stdout, /worker running/);

    // The same worker on the API's host is fine.
    const worker = start(['worker'], { ...env, VISUALIZER_HOSTNAME: 'host-a' });
    children.push(worker.child);
    await worker.printed(/worker running/);
    assert.doesNotMatch(worker.output.stderr, /Warning/);

    // An API process on the other host starts, warned; a second API process says limits are per process.
    const remote = start(['serve', '--api-only'], { ...env, VISUALIZER_HOSTNAME: 'host-b' });
    children.push(remote.child);
    await remote.printed(/listening on/);
    assert.match(
      remote.output.stderr,
      /Warning: The image CDN is 'local' .* processes on other hosts \(host-a\) use the same database/,
    );
    assert.match(
      remote.output.stderr,
      /Warning: Rate limits are per process: 2 API processes share this database with in-memory limits, so a key gets up to 2 times its limit\. Set VISUALIZER_LIMITS=redis/,
    );
    assert.doesNotMatch(remote.output.stderr, /No worker is running/, 'the worker on host-a counts');

    const client = new pg.Client({ connectionString: env.DATABASE_URL });
    await client.connect();
    try {
      const live = await client.query<{ hostname: string; role: string }>(
        'select hostname, role from processes order by started_at',
      );
      assert.deepEqual(live.rows, [
        { hostname: 'host-a', role: 'serve-api-only' },
        { hostname: 'host-a', role: 'worker' },
        { hostname: 'host-b', role: 'serve-api-only' },
      ]);
      for (const process of [remote, worker, api]) {
        process.child.kill('SIGTERM');
        assert.equal(await process.exited, 0);
      }
      assert.equal(
        (await client.query('select count(*)::int as n from processes')).rows[0].n,
        0,
        'stopped processes unregister',
      );
    } finally {
      await client.end();
    }
  });
});
