/**
 * Gives tests a real PostgreSQL server.
 *
 * - With DATABASE_URL=postgres://… (or postgresql://…) set, that server is used: each
 *   createDatabase() makes a fresh `visualizer_test_<random>` database on it, and stop()
 *   drops them again.
 * - Else, with VISUALIZER_TEST_POSTGRES_URL set (by scripts/with-test-postgres.ts, which `npm test`
 *   runs under), the run's one shared throwaway cluster is used the same way.
 * - Otherwise a throwaway cluster is created with initdb in a temp dir, started on a free
 *   loopback port, and stopped and deleted by stop() (or, best effort, when the process exits).
 *
 * Any failure throws with the command, its output and the tail of the server log: a test
 * that needs PostgreSQL fails loudly rather than silently skipping.
 */
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../../core/http/free-port.ts';
import { isExecutable, tail } from './files.ts';

export interface PostgresTestServer {
  /** Creates a fresh empty database on the server and returns its postgres:// URL. */
  createDatabase(): Promise<string>;
  /** Drops the databases it created; if it started a cluster, stops it and deletes its directory. Idempotent. */
  stop(): Promise<void>;
}

const execFileAsync = promisify(execFile);

/** OS user that owns and runs the cluster when we are root (initdb refuses to run as root). */
const CLUSTER_OS_USER = 'postgres';

/** Where scripts/with-test-postgres.ts hands a test run its one cluster's admin URL. */
export const SHARED_CLUSTER_VARIABLE = 'VISUALIZER_TEST_POSTGRES_URL';

export async function startPostgresTestServer(): Promise<PostgresTestServer> {
  const external = process.env.DATABASE_URL;
  // A non-postgres DATABASE_URL (e.g. a SQLite path) says nothing about a PostgreSQL server.
  if (external && /^postgres(ql)?:\/\//i.test(external)) {
    return serverOn(external, async () => {});
  }
  const shared = process.env[SHARED_CLUSTER_VARIABLE];
  if (shared) return serverOn(shared, async () => {});
  const cluster = await startCluster();
  // The whole cluster is deleted on stop, so its databases need no separate DROP.
  return serverOn(cluster.adminUrl, cluster.stop, { dropDatabases: false });
}

/** createDatabase()/stop() against a server reachable through `adminUrl`. */
function serverOn(adminUrl: string, shutdown: () => Promise<void>, { dropDatabases = true } = {}): PostgresTestServer {
  const created: string[] = [];
  let stopping: Promise<void> | undefined;

  return {
    async createDatabase() {
      if (stopping) throw new Error('PostgresTestServer: createDatabase() called after stop()');
      const name = `visualizer_test_${randomBytes(8).toString('hex')}`;
      await withAdminClient(adminUrl, (client) => client.query(`CREATE DATABASE ${quoteIdent(name)}`));
      created.push(name);
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      return url.href;
    },
    stop() {
      stopping ??= (async () => {
        const errors: unknown[] = [];
        if (dropDatabases && created.length > 0) {
          try {
            await withAdminClient(adminUrl, async (client) => {
              for (const name of created) {
                // FORCE: a test that leaked a pool must not make cleanup fail.
                await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
              }
            });
          } catch (error) {
            errors.push(error);
          }
        }
        try {
          await shutdown();
        } catch (error) {
          errors.push(error);
        }
        if (errors.length === 1) throw errors[0];
        if (errors.length > 1) throw new AggregateError(errors, 'PostgresTestServer: stop() failed');
      })();
      return stopping;
    },
  };
}

async function withAdminClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`PostgresTestServer: cannot connect to ${redact(url)}: ${messageOf(error)}`, { cause: error });
  }
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

// ---------------------------------------------------------------------------------------------
// Throwaway cluster

export interface Cluster {
  adminUrl: string;
  stop(): Promise<void>;
}

export async function startCluster(): Promise<Cluster> {
  const binDir = await findPostgresBinDir();
  const initdb = path.join(binDir, 'initdb');
  const pgCtl = path.join(binDir, 'pg_ctl');
  const asRoot = process.getuid?.() === 0;
  const runner = asRoot ? await findRunAsUser() : undefined;

  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'visualizer-pg-'));
  const dataDir = path.join(dir, 'data');
  const logFile = path.join(dir, 'log');

  /** Runs a command as the cluster's OS user (ourselves unless root), with a readable error. */
  const run = async (file: string, args: string[], timeoutMs: number): Promise<void> => {
    const [cmd, cmdArgs] = runner ? runner(file, args) : [file, args];
    try {
      // cwd = dir: the postgres user may not be allowed into the caller's working directory.
      await execFileAsync(cmd, cmdArgs, { cwd: dir, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 });
    } catch (error) {
      throw new Error(
        [
          `PostgresTestServer: command failed: ${[cmd, ...cmdArgs].map(shellQuote).join(' ')}`,
          describeExecError(error),
          section('stdout', (error as { stdout?: string }).stdout),
          section('stderr', (error as { stderr?: string }).stderr),
          section(`server log (${logFile}, tail)`, await tail(logFile)),
        ]
          .filter(Boolean)
          .join('\n'),
        { cause: error },
      );
    }
  };

  const stopArgs = ['-D', dataDir, '-m', 'immediate', '-w', '-t', '30', 'stop'];
  let stopped = false;
  // Best effort for a test run that crashes or forgets stop(): 'exit' handlers must be synchronous.
  const onExit = () => {
    if (stopped) return;
    stopped = true;
    const [cmd, cmdArgs] = runner ? runner(pgCtl, stopArgs) : [pgCtl, stopArgs];
    spawnSync(cmd, cmdArgs, { cwd: dir, stdio: 'ignore', timeout: 30_000 });
    rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', onExit);

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.off('exit', onExit);
    try {
      // Only running clusters have a postmaster.pid; skipping the call avoids a pointless failure.
      if (await exists(path.join(dataDir, 'postmaster.pid'))) {
        await run(pgCtl, stopArgs, 60_000);
      }
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  };

  try {
    if (runner) {
      await execFileOrThrow('chown', ['-R', `${CLUSTER_OS_USER}:`, dir]);
      // A TMPDIR below e.g. /root is not reachable for the postgres user; say so clearly.
      await run('test', ['-w', dir], 10_000).catch((error: Error) => {
        throw new Error(
          `PostgresTestServer: OS user "${CLUSTER_OS_USER}" cannot write ${dir}; ` +
            `point TMPDIR at a directory it can reach (e.g. /tmp).\n${error.message}`,
          { cause: error },
        );
      });
    }
    await run(
      initdb,
      ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'],
      120_000,
    );
    const port = await freePort();
    const serverOptions = [
      `-p ${port}`,
      '-c listen_addresses=127.0.0.1',
      `-k ${shellQuote(dir)}`, // Unix socket in our own dir: no clash with a system server
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      // Room for three test files at once, each with several processes and their pools, on one cluster.
      '-c max_connections=600',
    ].join(' ');
    await run(pgCtl, ['-D', dataDir, '-l', logFile, '-w', '-t', '60', '-o', serverOptions, 'start'], 90_000);
    return { adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`, stop };
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
}

/** The first directory holding both initdb and pg_ctl: PATH, then /usr/lib/postgresql/<newest>/bin. */
async function findPostgresBinDir(): Promise<string> {
  const candidates = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  const debianRoot = '/usr/lib/postgresql';
  const versions = await fs.readdir(debianRoot).catch(() => [] as string[]);
  versions
    .filter((v) => /^\d+(\.\d+)*$/.test(v))
    .sort(compareVersionsDescending)
    .forEach((v) => {
      candidates.push(path.join(debianRoot, v, 'bin'));
    });

  for (const dir of candidates) {
    if ((await isExecutable(path.join(dir, 'initdb'))) && (await isExecutable(path.join(dir, 'pg_ctl')))) {
      return dir;
    }
  }
  throw new Error(
    'PostgresTestServer: initdb/pg_ctl not found on PATH or under /usr/lib/postgresql/*/bin. ' +
      'Install PostgreSQL (e.g. `apt-get install postgresql`) or set DATABASE_URL to a server.',
  );
}

type Runner = (file: string, args: string[]) => [string, string[]];

/** How root runs a command as the cluster user: runuser, else su. */
async function findRunAsUser(): Promise<Runner> {
  await execFileOrThrow('id', ['-u', CLUSTER_OS_USER]).catch((error: Error) => {
    throw new Error(
      `PostgresTestServer: running as root, but initdb refuses root and there is no ` +
        `"${CLUSTER_OS_USER}" OS user to run the cluster as.\n${error.message}`,
      { cause: error },
    );
  });
  for (const dir of ['/usr/sbin', '/sbin', '/usr/bin', '/bin']) {
    const runuser = path.join(dir, 'runuser');
    if (await isExecutable(runuser)) {
      return (file, args) => [runuser, ['-u', CLUSTER_OS_USER, '--', file, ...args]];
    }
  }
  return (file, args) => ['su', [CLUSTER_OS_USER, '-s', '/bin/sh', '-c', [file, ...args].map(shellQuote).join(' ')]];
}

async function execFileOrThrow(file: string, args: string[]): Promise<void> {
  try {
    await execFileAsync(file, args, { timeout: 30_000 });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr;
    throw new Error(
      [
        `PostgresTestServer: command failed: ${[file, ...args].map(shellQuote).join(' ')}`,
        describeExecError(error),
        section('stderr', stderr),
      ]
        .filter(Boolean)
        .join('\n'),
      { cause: error },
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Small helpers

function compareVersionsDescending(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const diff = (pb[i] ?? 0) - (pa[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

function section(title: string, body: string | undefined): string {
  return body?.trim() ? `--- ${title} ---\n${body.trimEnd()}` : '';
}

function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.href;
  } catch {
    return '<unparsable DATABASE_URL>';
  }
}

/** Why an execFile call failed, without repeating its output (that is shown separately). */
function describeExecError(error: unknown): string {
  const e = error as { code?: unknown; signal?: unknown; killed?: boolean };
  if (typeof e.code === 'string') return `error: ${e.code} (${messageOf(error)})`; // e.g. ENOENT
  if (e.killed || e.signal) return `killed by ${String(e.signal)} (timeout?)`;
  if (typeof e.code === 'number') return `exit code ${e.code}`;
  return `error: ${messageOf(error)}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
