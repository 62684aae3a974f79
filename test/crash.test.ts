import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { startImageHost } from './support/generation-app.ts';
import { startHttpsServer, testCertificates, type TestHttpsServer } from './support/https-server.ts';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';

const bin = path.join(import.meta.dirname, '..', 'bin', 'visualizer.js');
const run = promisify(execFile);

/** Starts a CLI process and resolves once it prints a line matching `ready`. */
function start(args: string[], env: Record<string, string>, ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(bin, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      const match = ready.exec(stdout);
      if (match) resolve({ child, match });
    });
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}: ${stderr}`)));
  });
}

const exited = (child: ChildProcess) => new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)));

let postgres: PostgresTestServer | undefined;
after(async () => postgres?.stop());

for (const database of ['sqlite', 'postgres'] as const) {
  describe(`a worker killed with renders in flight (${database})`, () => {
    let dir: string;
    let host: TestHttpsServer;
    let env: Record<string, string>;
    const children: ChildProcess[] = [];
    before(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-crash-'));
      host = await startImageHost();
      const config = path.join(dir, 'config.json');
      // Slow renders keep jobs in flight; a short lease lets the next worker reclaim them soon.
      writeFileSync(config, JSON.stringify({ pluginOptions: { mock: { latencyMs: 3_000 }, db: { leaseMs: 2_000, pollIntervalMs: 100 } } }));
      env = {
        VISUALIZER_DATA_DIR: dir,
        VISUALIZER_CONFIG: config,
        VISUALIZER_OUTBOUND_ALLOW: 'localhost',
        NODE_EXTRA_CA_CERTS: (await testCertificates()).caFile,
      };
      if (database === 'postgres') {
        postgres ??= await startPostgresTestServer();
        env.DATABASE_URL = await postgres.createDatabase();
        await run(bin, ['migrate'], { env: { ...process.env, ...env } });
      }
    });
    after(async () => {
      for (const child of children) child.kill('SIGKILL');
      await host.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('loses nothing: every accepted generation completes after a restart, charged once', async () => {
      const { stdout } = await run(bin, ['orgs', 'create', '--name', 'crash', '--credits', '50', '--json'], { env: { ...process.env, ...env } });
      const apiKey = JSON.parse(stdout).apiKey as string;

      // The API alone, and a separate worker process that will die.
      const api = await start(['serve'], { ...env, PORT: '0', VISUALIZER_WORKER_CONCURRENCY: '0' }, /listening on (http:\S+)/);
      children.push(api.child);
      const url = api.match[1]!;
      const doomed = await start(['worker'], { ...env, VISUALIZER_WORKER_CONCURRENCY: '3' }, /worker running/);
      children.push(doomed.child);

      const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        const response = await fetch(`${url}/v1/generations`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ mode: 'virtual-try-on', image: `${host.url}/photo.jpg`, products: [{ productId: i, productTitle: `Item ${i}`, imageUrl: `${host.url}/product.png` }] }),
        });
        assert.equal(response.status, 202);
        ids.push((await response.json()).id);
      }
      const get = async (id: string) => (await fetch(`${url}/v1/generations/${id}`, { headers })).json();

      // Wait until the worker has claimed renders (they take 3 s), then kill it without warning.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      doomed.child.kill('SIGKILL');
      await exited(doomed.child);
      const statuses = await Promise.all(ids.map(async (id) => (await get(id)).status));
      assert.ok(statuses.filter((status) => status === 'processing').length >= 3, `renders were in flight when the worker died: ${statuses}`);

      const successor = await start(['worker'], { ...env, VISUALIZER_WORKER_CONCURRENCY: '3' }, /worker running/);
      children.push(successor.child);
      const deadline = Date.now() + 60_000;
      let finished: Array<{ status: string; error: unknown }> = [];
      while (Date.now() < deadline) {
        finished = await Promise.all(ids.map(get));
        if (finished.every((generation) => generation.status !== 'processing')) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      assert.deepEqual(finished.map((generation) => generation.status), Array(6).fill('complete'), JSON.stringify(finished.map((g) => g.error)));

      const credits = await (await fetch(`${url}/v1/credits`, { headers })).json();
      assert.equal(credits.balance, 44, 'six 1K generations, charged once each, none refunded');

      successor.child.kill('SIGTERM');
      assert.equal(await exited(successor.child), 0, 'a worker stops cleanly on SIGTERM');
      api.child.kill('SIGTERM');
      assert.equal(await exited(api.child), 0);
    });
  });
}

describe('a server killed mid-delivery', () => {
  let dir: string;
  let host: TestHttpsServer;
  let receiver: TestHttpsServer;
  const children: ChildProcess[] = [];
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-crash-hook-'));
    host = await startImageHost();
    // The first attempt hangs, so the process dies while it is in flight; later ones succeed.
    let calls = 0;
    receiver = await startHttpsServer((_req, res) => {
      calls += 1;
      if (calls > 1) res.writeHead(200).end('ok');
    });
  });
  after(async () => {
    for (const child of children) child.kill('SIGKILL');
    await host.close();
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('delivers the event after a restart, with the same webhook-id', async () => {
    const config = path.join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ pluginOptions: { db: { leaseMs: 2_000, pollIntervalMs: 100 } } }));
    const env = {
      VISUALIZER_DATA_DIR: dir,
      VISUALIZER_CONFIG: config,
      VISUALIZER_OUTBOUND_ALLOW: 'localhost',
      NODE_EXTRA_CA_CERTS: (await testCertificates()).caFile,
      PORT: '0',
    };
    const { stdout } = await run(bin, ['orgs', 'create', '--name', 'hooks', '--credits', '5', '--json'], { env: { ...process.env, ...env } });
    const headers = { authorization: `Bearer ${JSON.parse(stdout).apiKey}`, 'content-type': 'application/json' };

    const first = await start(['serve'], env, /listening on (http:\S+)/);
    children.push(first.child);
    let url = first.match[1]!;
    const endpoint = await (await fetch(`${url}/v1/webhook-endpoints`, { method: 'POST', headers, body: JSON.stringify({ url: `${receiver.url}/hook`, enabledEvents: ['*'] }) })).json();
    assert.match(endpoint.id, /^whe_/);
    await fetch(`${url}/v1/generations`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ mode: 'virtual-try-on', image: `${host.url}/photo.jpg`, products: [{ productId: 1, productTitle: 'Hat', imageUrl: `${host.url}/product.png` }] }),
    });
    const deadline = Date.now() + 30_000;
    while (receiver.requests.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(receiver.requests.length, 1, 'the first attempt is in flight');
    first.child.kill('SIGKILL');
    await exited(first.child);

    const second = await start(['serve'], env, /listening on (http:\S+)/);
    children.push(second.child);
    url = second.match[1]!;
    while (receiver.requests.length < 2 && Date.now() < deadline + 30_000) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(receiver.requests.length, 2, 'the attempt was made again after the restart');
    const [lost, delivered] = receiver.requests;
    assert.equal(delivered!.headers['webhook-id'], lost!.headers['webhook-id']);
    assert.deepEqual(delivered!.body, lost!.body);

    const eventId = String(delivered!.headers['webhook-id']);
    let event;
    do {
      event = await (await fetch(`${url}/v1/events/${eventId}`, { headers })).json();
    } while (event.deliveries[0].status === 'pending' && (await new Promise((resolve) => setTimeout(resolve, 50, true))));
    assert.equal(event.deliveries[0].status, 'succeeded');
    second.child.kill('SIGTERM');
    assert.equal(await exited(second.child), 0);
  });
});
