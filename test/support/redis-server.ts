/**
 * Gives tests a real Redis: Debian's `redis-server` in a temp dir on a free loopback port, with
 * nothing persisted (`--save '' --appendonly no`). A missing binary fails the test that asked.
 * stop() kills it and deletes the dir (also, best effort, when the test process exits).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../core/http/free-port.ts';
import { isExecutable } from './files.ts';

const REDIS_BINARY = process.env.REDIS_SERVER_BINARY ?? '/usr/bin/redis-server';
const readyTimeoutMs = 20_000;

export interface RedisTestServer {
  /** `redis://127.0.0.1:<port>` */
  url: string;
  /** Idempotent. */
  stop(): Promise<void>;
}

export async function startRedisServer(): Promise<RedisTestServer> {
  if (!(await isExecutable(REDIS_BINARY))) {
    throw new Error(
      `RedisTestServer: ${REDIS_BINARY} not found or not executable. Install it with \`apt-get install redis-server\`.`,
    );
  }
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'visualizer-redis-'));
  const port = await freePort();
  const child: ChildProcess = spawn(
    REDIS_BINARY,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--daemonize',
      'no',
      '--loglevel',
      'notice',
    ],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const onExit = () => child.kill('SIGKILL');
  process.on('exit', onExit);
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      process.off('exit', onExit);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
      await fs.rm(dir, { recursive: true, force: true });
    })());

  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`redis-server printed no ready line in ${readyTimeoutMs} ms:\n${output}`)),
        readyTimeoutMs,
      );
      const onData = (chunk: Buffer) => {
        output = (output + chunk).slice(-8_000);
        if (/Ready to accept connections/.test(output)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited (${code ?? signal}) before it was ready:\n${output}`));
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `redis://127.0.0.1:${port}`, stop };
}
