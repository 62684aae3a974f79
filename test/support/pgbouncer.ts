/**
 * Gives tests a real PgBouncer (Debian's /usr/sbin/pgbouncer) in front of a PostgreSQL server.
 *
 * startPgBouncer(serverUrl) starts one in `pool_mode = transaction` (the mode that breaks
 * LISTEN, session advisory locks and named prepared statements) on a free loopback port, with
 * its config, auth file and log in a temp dir. Every database of the server is reachable
 * through it: url(databaseUrl) turns a URL of the server into the same database via the pooler.
 * stop() shuts it down and deletes the temp dir.
 *
 * A missing binary or a pooler that does not come up throws with its log: tests that need
 * PgBouncer fail rather than skip.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../core/http/free-port.ts';
import { isExecutable, tail } from './files.ts';

export interface PgBouncerTestServer {
  /** The same database, user and password as `databaseUrl` (a URL of the backing server), through the pooler. */
  url(databaseUrl: string): string;
  /** Stops the pooler (dropping its client connections) and deletes its directory. Idempotent. */
  stop(): Promise<void>;
}

export interface PgBouncerOptions {
  /** Default `transaction`; `session` is there for comparisons. */
  poolMode?: 'transaction' | 'session';
  /** Server connections per database/user pair; default 20. */
  poolSize?: number;
}

export const PGBOUNCER_BINARY = '/usr/sbin/pgbouncer';

/** OS user to run as when we are root: PgBouncer refuses to run as root. */
const RUN_AS_USER = 'postgres';

const execFileAsync = promisify(execFile);

export async function startPgBouncer(serverUrl: string, options: PgBouncerOptions = {}): Promise<PgBouncerTestServer> {
  if (!(await isExecutable(PGBOUNCER_BINARY))) {
    throw new Error(
      `PgBouncerTestServer: ${PGBOUNCER_BINARY} not found or not executable. Install it with \`apt-get install pgbouncer\`.`,
    );
  }
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username || 'postgres');
  const password = decodeURIComponent(server.password);
  const backendHost = server.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
  const backendPort = server.port || '5432';

  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'visualizer-pgbouncer-'));
  const logFile = path.join(dir, 'pgbouncer.log');
  const port = await freePort();
  const ids = process.getuid?.() === 0 ? await userIds(RUN_AS_USER) : undefined;

  // `*` forwards every database name to the same-named database on the server; trust: the test
  // clients are not authenticated, while the pooler logs in to the server with the auth file's password.
  const config = [
    '[databases]',
    `* = host=${backendHost} port=${backendPort}`,
    '',
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${path.join(dir, 'userlist.txt')}`,
    `pool_mode = ${options.poolMode ?? 'transaction'}`,
    `default_pool_size = ${options.poolSize ?? 20}`,
    'max_client_conn = 1000',
    `logfile = ${logFile}`,
    `pidfile = ${path.join(dir, 'pgbouncer.pid')}`,
    'ignore_startup_parameters = extra_float_digits,options',
    'server_check_delay = 0',
    '',
  ].join('\n');
  const configFile = path.join(dir, 'pgbouncer.ini');

  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let stopping: Promise<void> | undefined;
  let earlyExit: string | undefined;

  const stop = () => {
    stopping ??= (async () => {
      process.off('exit', onExit);
      if (child && child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM'); // immediate shutdown: open client connections are dropped
        const timer = setTimeout(() => child?.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      await fs.rm(dir, { recursive: true, force: true });
    })();
    return stopping;
  };
  const onExit = () => {
    child?.kill('SIGKILL');
  };

  try {
    await fs.writeFile(configFile, config);
    await fs.writeFile(path.join(dir, 'userlist.txt'), `${quote(user)} ${quote(password)}\n`, { mode: 0o600 });
    if (ids) await execFileAsync('chown', ['-R', `${ids.uid}:${ids.gid}`, dir]);

    child = spawn(PGBOUNCER_BINARY, [configFile], {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'pipe'],
      ...(ids ?? {}),
    });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-8_000);
    });
    const proc = child;
    exited = new Promise((resolve) => {
      proc.once('exit', (code, signal) => {
        earlyExit = `exited with ${signal ?? `code ${code}`}${stderr.trim() ? `\n--- stderr ---\n${stderr.trim()}` : ''}`;
        resolve();
      });
      proc.once('error', (error) => {
        earlyExit = `could not be started: ${error.message}`;
        resolve();
      });
    });
    process.on('exit', onExit);

    const deadline = Date.now() + 15_000;
    while (!(await canConnect(port))) {
      if (earlyExit !== undefined || Date.now() > deadline) {
        throw new Error(
          [
            `PgBouncerTestServer: ${PGBOUNCER_BINARY} ${earlyExit ?? 'did not listen within 15 s'}`,
            `--- ${configFile} ---\n${config}`,
            `--- log (tail) ---\n${await tail(logFile)}`,
          ].join('\n'),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }

  return {
    url(databaseUrl: string) {
      const url = new URL(databaseUrl);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return url.href;
    },
    stop,
  };
}

function quote(value: string): string {
  return `"${value.replaceAll('"', '""')}"`;
}

async function userIds(name: string): Promise<{ uid: number; gid: number }> {
  try {
    const [{ stdout: uid }, { stdout: gid }] = await Promise.all([
      execFileAsync('id', ['-u', name]),
      execFileAsync('id', ['-g', name]),
    ]);
    return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
  } catch (error) {
    throw new Error(
      `PgBouncerTestServer: running as root, but pgbouncer refuses root and there is no "${name}" OS user to run it as.`,
      { cause: error },
    );
  }
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
