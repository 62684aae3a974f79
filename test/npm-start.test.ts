import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { boot } from '../cli/boot.ts';
import { ApiError } from '../core/domain/errors.ts';
import { shutdown } from '../core/lifecycle.ts';
import { silentLogger } from '../core/logger.ts';
import { bin } from './support/cli.ts';
import { waitFor } from './support/wait-for.ts';

const root = path.join(import.meta.dirname, '..');

/**
 * Starts `command` in a process group of its own (so cleanup reaches every process it started,
 * whatever happens) and resolves once the server prints its address.
 */
function startGroup(command: string, args: string[], env: Record<string, string>) {
  const child = spawn(command, args, {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    // No update check: tests contact loopback only.
    env: { ...process.env, PORT: '0', npm_config_update_notifier: 'false', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const listening = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', () => {
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    exited.then((code) => reject(new Error(`${command} exited with ${code} before listening: ${stderr}`)));
  });
  return { child, listening, exited, stdout: () => stdout, stderr: () => stderr };
}

/** Whether any process of the group is still alive (signal 0 only checks). */
function groupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)),
  );
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function groupGone(group: number, ms: number) {
  const deadline = Date.now() + ms;
  while (groupAlive(group)) {
    if (Date.now() > deadline) throw new Error(`processes of group ${group} still running ${ms} ms after SIGTERM`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function killGroup(child: ChildProcess) {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
}

const client = { userAgent: 'test', ipAddress: '127.0.0.1' };

/** The banner's dashboard sign-in link, checked for its form; resolves to its token. */
async function dashboardToken(stdout: () => string, port: string) {
  await waitFor('the dashboard sign-in line of the banner', () => /^Dashboard sign-in: .*\n/m.test(stdout()));
  const line = /^Dashboard sign-in: .*$/m.exec(stdout())![0];
  const pattern = new RegExp(
    `^Dashboard sign-in: http://localhost:${port}/dashboard/#/sign-in-link\\?token=([0-9A-Za-z]{32}) \\(signs in admin@development\\.localhost once, within 15 minutes; a new link each start\\)$`,
  );
  const match = pattern.exec(line);
  assert.ok(match, line);
  return match[1]!;
}

/** The accounts service on a running server's data directory (a second handle on its SQLite file). */
async function withAccounts(
  dir: string,
  work: (accounts: Awaited<ReturnType<typeof boot>>['container']['cradle']['accounts']) => Promise<void>,
) {
  const { container } = await boot({ VISUALIZER_DATA_DIR: dir }, { logger: silentLogger });
  try {
    await work(container.cradle.accounts);
  } finally {
    await shutdown(container);
  }
}

describe('the development sign-in link npm start prints', () => {
  it('is a new one at each start, for the same admin of the development organization', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-dev-link-'));
    try {
      const users = new Set<string>();
      const tokens: string[] = [];
      for (let start = 0; start < 2; start++) {
        const server = startGroup(process.execPath, [bin, 'serve'], { VISUALIZER_DATA_DIR: dir });
        try {
          const url = await within(60_000, 'serve listening', server.listening);
          tokens.push(await dashboardToken(server.stdout, new URL(url).port));
          server.child.kill('SIGTERM');
          assert.equal(await within(15_000, 'serve exiting', server.exited), 0);
        } finally {
          killGroup(server.child);
        }
      }
      assert.notEqual(tokens[0], tokens[1]);
      await withAccounts(dir, async (accounts) => {
        // Both are unused: each signs in once, the same user.
        for (const token of tokens) users.add((await accounts.redeemSignInLink(token, client)).user.id);
      });
      assert.equal(users.size, 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('stopping the server started the documented way', () => {
  it('npm start: SIGTERM to the npm process alone stops the server gracefully, and npm exits after it', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-npm-start-'));
    const npm = startGroup('npm', ['start'], { VISUALIZER_DATA_DIR: dir });
    try {
      const url = await within(60_000, 'npm start listening', npm.listening);
      assert.equal((await fetch(`${url}/healthz`)).status, 200);
      const token = await dashboardToken(npm.stdout, new URL(url).port);
      // The link signs the development organization's first admin in, once.
      await withAccounts(dir, async (accounts) => {
        const signedIn = await accounts.redeemSignInLink(token, client);
        assert.equal(signedIn.user.email, 'admin@development.localhost');
        assert.equal(signedIn.user.role, 'admin');
        assert.equal(signedIn.organization.name, 'Development');
        await assert.rejects(
          accounts.redeemSignInLink(token, client),
          (error) => error instanceof ApiError && error.code === 'invalid_link',
        );
      });

      npm.child.kill('SIGTERM');
      assert.equal(await within(15_000, 'npm exiting', npm.exited), 0, 'npm exits with the server’s own exit code');
      await groupGone(npm.child.pid!, 5_000);
      assert.match(
        npm.stderr(),
        /Stopping: finishing in-flight requests and renders/,
        'the server shut down itself, not killed',
      );
      await assert.rejects(fetch(`${url}/healthz`), 'the port refuses connections');
    } finally {
      killGroup(npm.child);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a server npm started stops when the shell between them dies of the signal (npx, a script without exec)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-npm-shell-'));
    // What npm runs for a script without `exec`: a shell that waits for the server as its child.
    const shell = startGroup('/bin/sh', ['-c', `"${process.execPath}" "${bin}" serve; exit $?`], {
      VISUALIZER_DATA_DIR: dir,
      npm_lifecycle_event: 'start',
    });
    try {
      const url = await within(60_000, 'serve listening', shell.listening);
      shell.child.kill('SIGTERM');
      await within(5_000, 'the shell exiting', shell.exited);
      await groupGone(shell.child.pid!, 15_000);
      assert.match(shell.stderr(), /Stopping: finishing in-flight requests and renders/);
      await assert.rejects(fetch(`${url}/healthz`));
    } finally {
      killGroup(shell.child);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
