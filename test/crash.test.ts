import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { startImageHost } from './support/generation-app.ts';
import { startHttpsServer, testCertificates, type TestHttpsServer } from './support/https-server.ts';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';
import { createResponseValidator } from './support/response-validator.ts';

const bin = path.join(import.meta.dirname, '..', 'bin', 'visualizer.js');
const run = promisify(execFile);

/** Starts a CLI process and resolves once it prints a line matching `ready`. */
function start(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
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

/** Resolves with the exit code (null when a signal ended it), also when the process has already exited. */
const exited = (child: ChildProcess) =>
  new Promise((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve(child.exitCode) : child.once('exit', resolve),
  );

let postgres: PostgresTestServer | undefined;
after(async () => postgres?.stop());

// The servers run in child processes, so their answers are checked against the OpenAPI document here.
const responses = createResponseValidator();
const fetch = responses.fetch;
after(() => responses.assertNoViolations());

/**
 * What a crash test runs in: a data dir with `config` as its config file, a loopback image host,
 * and for Postgres a migrated database of its own. Processes the test starts go in `children`; they
 * are killed and everything removed after the suite.
 */
function crashSandbox(database: 'sqlite' | 'postgres', config: Record<string, unknown>) {
  const sandbox = {
    dir: '',
    env: {} as Record<string, string>,
    host: undefined as unknown as TestHttpsServer,
    children: [] as ChildProcess[],
  };
  before(async () => {
    sandbox.dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-crash-'));
    sandbox.host = await startImageHost();
    const file = path.join(sandbox.dir, 'config.json');
    writeFileSync(file, JSON.stringify(config));
    sandbox.env = {
      VISUALIZER_DATA_DIR: sandbox.dir,
      VISUALIZER_CONFIG: file,
      VISUALIZER_OUTBOUND_ALLOW: 'localhost',
      NODE_EXTRA_CA_CERTS: (await testCertificates()).caFile,
      PORT: '0',
    };
    if (database === 'postgres') {
      postgres ??= await startPostgresTestServer();
      sandbox.env.DATABASE_URL = await postgres.createDatabase();
      await run(bin, ['migrate'], { env: { ...process.env, ...sandbox.env } });
    }
  });
  after(async () => {
    for (const child of sandbox.children) child.kill('SIGKILL');
    await sandbox.host.close();
    rmSync(sandbox.dir, { recursive: true, force: true });
  });
  return sandbox;
}

/** Accepts `count` try-ons through the API at `url`, one product each, from the image host; their ids. */
async function createGenerations(url: string, headers: Record<string, string>, hostUrl: string, count: number) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${url}/v1/generations`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        mode: 'virtual-try-on',
        image: `${hostUrl}/photo.jpg`,
        products: [{ productId: i, productTitle: `Item ${i}`, imageUrl: `${hostUrl}/product.png` }],
      }),
    });
    assert.equal(response.status, 202);
    ids.push((await response.json()).id as string);
  }
  return ids;
}

for (const database of ['sqlite', 'postgres'] as const) {
  describe(`a worker killed with renders in flight (${database})`, () => {
    // Slow renders keep jobs in flight; a short lease lets the next worker reclaim them soon.
    const sandbox = crashSandbox(database, {
      pluginOptions: { 'renderer-mock': { latencyMs: 3_000 }, 'queue-db': { leaseMs: 2_000, pollIntervalMs: 100 } },
    });

    it('loses nothing: every accepted generation completes after a restart, charged once', async () => {
      const { stdout } = await run(bin, ['orgs', 'create', '--name', 'crash', '--credits', '50', '--json'], {
        env: { ...process.env, ...sandbox.env },
      });
      const apiKey = JSON.parse(stdout).apiKey as string;

      // The API alone, and a separate worker process that will die.
      const api = await start(
        ['serve'],
        { ...sandbox.env, PORT: '0', VISUALIZER_WORKER_CONCURRENCY: '0' },
        /listening on (http:\S+)/,
      );
      sandbox.children.push(api.child);
      const url = api.match[1]!;
      const doomed = await start(['worker'], { ...sandbox.env, VISUALIZER_WORKER_CONCURRENCY: '3' }, /worker running/);
      sandbox.children.push(doomed.child);

      const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
      const ids = await createGenerations(url, headers, sandbox.host.url, 6);
      const get = async (id: string) => (await fetch(`${url}/v1/generations/${id}`, { headers })).json();

      // Wait until the worker has claimed renders (they take 3 s), then kill it without warning.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      doomed.child.kill('SIGKILL');
      await exited(doomed.child);
      const statuses = await Promise.all(ids.map(async (id) => (await get(id)).status));
      assert.ok(
        statuses.filter((status) => status === 'processing').length >= 3,
        `renders were in flight when the worker died: ${statuses}`,
      );

      const successor = await start(
        ['worker'],
        { ...sandbox.env, VISUALIZER_WORKER_CONCURRENCY: '3' },
        /worker running/,
      );
      sandbox.children.push(successor.child);
      const deadline = Date.now() + 60_000;
      let finished: Array<{ status: string; error: unknown }> = [];
      while (Date.now() < deadline) {
        finished = await Promise.all(ids.map(get));
        if (finished.every((generation) => generation.status !== 'processing')) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      assert.deepEqual(
        finished.map((generation) => generation.status),
        Array(6).fill('complete'),
        JSON.stringify(finished.map((g) => g.error)),
      );

      const credits = await (await fetch(`${url}/v1/credits`, { headers })).json();
      assert.equal(credits.balance, 44, 'six 1K generations, charged once each, none refunded');

      successor.child.kill('SIGTERM');
      assert.equal(await exited(successor.child), 0, 'a worker stops cleanly on SIGTERM');
      api.child.kill('SIGTERM');
      assert.equal(await exited(api.child), 0);
    });
  });
}

describe('a worker stopped (SIGTERM) with a render still running at shutdownTimeoutMs', () => {
  // A render that takes a minute, a stop that waits 300 ms for it, a lease of ten minutes.
  const sandbox = crashSandbox('sqlite', {
    shutdownTimeoutMs: 300,
    pluginOptions: { 'renderer-mock': { latencyMs: 60_000 }, 'queue-db': { leaseMs: 600_000, pollIntervalMs: 100 } },
  });

  it('exits 0 after aborting it, and another worker renders the released job at once, charged once', async () => {
    const { stdout } = await run(bin, ['orgs', 'create', '--name', 'deploy', '--credits', '5', '--json'], {
      env: { ...process.env, ...sandbox.env },
    });
    const headers = { authorization: `Bearer ${JSON.parse(stdout).apiKey}`, 'content-type': 'application/json' };
    const api = await start(
      ['serve'],
      { ...sandbox.env, VISUALIZER_WORKER_CONCURRENCY: '0' },
      /listening on (http:\S+)/,
    );
    sandbox.children.push(api.child);
    const url = api.match[1]!;
    const stopping = await start(['worker'], sandbox.env, /worker running/);
    sandbox.children.push(stopping.child);
    const created = await fetch(`${url}/v1/generations`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        mode: 'room-visualizer',
        image: `${sandbox.host.url}/photo.jpg`,
        products: [{ productId: 1, productTitle: 'Lamp', imageUrl: `${sandbox.host.url}/product.png` }],
      }),
    });
    const { id } = await created.json();
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // claimed, and waiting on the engine
    stopping.child.kill('SIGTERM');
    assert.equal(await exited(stopping.child), 0, 'it stopped cleanly');
    const left = await (await fetch(`${url}/v1/generations/${id}`, { headers })).json();
    assert.equal(
      left.status,
      'processing',
      'its render was aborted, not waited out, and the generation not failed for it',
    );

    // The successor's engine is quick. With a ten-minute lease, only a released job can reach it in time.
    const quick = path.join(sandbox.dir, 'quick.json');
    writeFileSync(quick, JSON.stringify({ pluginOptions: { 'queue-db': { pollIntervalMs: 100 } } }));
    const successor = await start(['worker'], { ...sandbox.env, VISUALIZER_CONFIG: quick }, /worker running/);
    sandbox.children.push(successor.child);
    const deadline = Date.now() + 60_000;
    let generation: { status: string; error: unknown } = { status: 'processing', error: null };
    while (generation.status === 'processing' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      generation = await (await fetch(`${url}/v1/generations/${id}`, { headers })).json();
    }
    assert.equal(generation.status, 'complete', JSON.stringify(generation.error));
    assert.equal(
      (await (await fetch(`${url}/v1/credits`, { headers })).json()).balance,
      4,
      'charged once, nothing refunded',
    );
    successor.child.kill('SIGTERM');
    assert.equal(await exited(successor.child), 0);
    api.child.kill('SIGTERM');
    assert.equal(await exited(api.child), 0);
  });
});

/** The generation ids of an organization, every page of `GET /v1/generations`. */
async function listAll(url: string, headers: Record<string, string>) {
  const ids: string[] = [];
  let after = '';
  for (;;) {
    const page = await (await fetch(`${url}/v1/generations?limit=100${after}`, { headers })).json();
    ids.push(...page.data.map((generation: { id: string }) => generation.id));
    if (!page.has_more) return ids;
    after = `&starting_after=${ids.at(-1)}`;
  }
}

for (const database of ['sqlite', 'postgres'] as const) {
  describe(`an API server killed mid-burst of creates (${database})`, () => {
    // The burst must reach the server, not the rate limiter. Uploads a crash orphaned (and temp files
    // of uploads it cut short) are swept once 15 s old, so the test sees the sweep; younger would
    // sweep the photo of a create still committing on a loaded host, failing its render.
    const unlimited = { perSecond: 100_000, burst: 100_000 };
    const sandbox = crashSandbox(database, {
      rateLimits: { create: unlimited, read: unlimited },
      uploads: { sweepIntervalMs: 250, orphanAfterMs: 15_000 },
      pluginOptions: { 'queue-db': { pollIntervalMs: 100 }, 'cdn-local': { staleTempMs: 15_000 } },
    });

    it('keeps every answered create; retries with the same idempotency key then create or replay each exactly once', async () => {
      const credits = 500;
      const { stdout } = await run(bin, ['orgs', 'create', '--name', 'burst', '--credits', String(credits), '--json'], {
        env: { ...process.env, ...sandbox.env },
      });
      const apiKey = JSON.parse(stdout).apiKey as string;
      const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
      // A grainy uploaded photo (about 1 MB): each create takes long enough that the kill finds some mid-way.
      const photo = await sharp({
        create: {
          width: 1200,
          height: 1600,
          channels: 3,
          background: '#808080',
          noise: { type: 'gaussian', mean: 128, sigma: 40 },
        },
      })
        .jpeg()
        .toBuffer();
      const image = `data:image/jpeg;base64,${photo.toString('base64')}`;
      const body = JSON.stringify({
        mode: 'virtual-try-on',
        image,
        products: [{ productId: 1, productTitle: 'Hat', imageUrl: `${sandbox.host.url}/product.png` }],
      });
      const create = (url: string, key: string) =>
        fetch(`${url}/v1/generations`, { method: 'POST', headers: { ...headers, 'idempotency-key': key }, body });

      // No workers: the crash hits the create path alone (the request, the group commit, the answer).
      const first = await start(
        ['serve'],
        { ...sandbox.env, VISUALIZER_WORKER_CONCURRENCY: '0' },
        /listening on (http:\S+)/,
      );
      sandbox.children.push(first.child);
      const answered = new Map<string, string>();
      const unanswered: string[] = [];
      let sent = 0;
      // 16 clients create until the 24th answer arrives; the server is killed then, with the other 15 in flight.
      let killed = false;
      try {
        await Promise.all(
          Array.from({ length: 16 }, async () => {
            while (!killed) {
              const key = `burst-${sent++}`;
              // An answer counts only when it arrived whole; a reset mid-body is no answer to the client.
              const answer = await create(first.match[1]!, key)
                .then(async (response) => ({ status: response.status, text: await response.text() }))
                .catch(() => null);
              if (!answer) {
                unanswered.push(key);
                continue;
              }
              assert.equal(answer.status, 202, answer.text);
              answered.set(key, JSON.parse(answer.text).id);
              if (answered.size === 24) {
                killed = true;
                first.child.kill('SIGKILL');
              }
            }
          }),
        );
      } finally {
        first.child.kill('SIGKILL');
      }
      await exited(first.child);
      assert.ok(unanswered.length > 0, 'some creates were in flight when the server died');

      const second = await start(
        ['serve'],
        { ...sandbox.env, VISUALIZER_WORKER_CONCURRENCY: '4' },
        /listening on (http:\S+)/,
      );
      sandbox.children.push(second.child);
      const url = second.match[1]!;
      const stored = new Set(await listAll(url, headers));
      for (const [key, id] of answered)
        assert.ok(stored.has(id), `${key} was answered 202 (${id}) before the crash, so it must be stored`);

      // A client that got no answer retries with its key: a create that committed is replayed (200), one that did not is made now (202).
      let replayed = 0;
      for (const key of unanswered) {
        const response = await create(url, key);
        assert.ok(response.status === 200 || response.status === 202, `${key}: ${response.status}`);
        const id = (await response.json()).id as string;
        if (response.status === 200) {
          replayed += 1;
          assert.ok(stored.has(id), `${key} replays a generation that was stored`);
        }
        answered.set(key, id);
      }
      const all = await listAll(url, headers);
      assert.equal(new Set(answered.values()).size, answered.size, 'one generation per idempotency key');
      assert.deepEqual(
        new Set(all),
        new Set(answered.values()),
        'every stored generation belongs to a request, and every request has one',
      );
      assert.equal(
        stored.size,
        answered.size - (unanswered.length - replayed),
        'what was stored before the crash is exactly the answered creates and the replayed ones',
      );

      // Charged once per generation, and each one's job survived: all of them complete.
      const balance = (await (await fetch(`${url}/v1/credits`, { headers })).json()).balance;
      assert.equal(balance, credits - all.length);
      const deadline = Date.now() + 120_000;
      let processing = all.length;
      while (processing > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        processing = (await (await fetch(`${url}/v1/generations?limit=100&status=processing`, { headers })).json()).data
          .length;
      }
      assert.equal(processing, 0, 'every generation was rendered after the restart');
      const failed = (await (await fetch(`${url}/v1/generations?limit=100&status=failed`, { headers })).json()).data;
      assert.deepEqual(failed, []);

      // Renders delete their photos; the sweep deletes those of creates that never committed. None is kept.
      const uploadsDir = path.join(sandbox.dir, 'cdn', 'private', 'uploads');
      const photos = () =>
        existsSync(uploadsDir)
          ? readdirSync(uploadsDir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).length
          : 0;
      while (photos() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
      assert.equal(photos(), 0, 'no uploaded photo outlives its generation, nor a create that never committed');
      second.child.kill('SIGTERM');
      assert.equal(await exited(second.child), 0);
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
    writeFileSync(config, JSON.stringify({ pluginOptions: { 'queue-db': { leaseMs: 2_000, pollIntervalMs: 100 } } }));
    const env = {
      VISUALIZER_DATA_DIR: dir,
      VISUALIZER_CONFIG: config,
      VISUALIZER_OUTBOUND_ALLOW: 'localhost',
      NODE_EXTRA_CA_CERTS: (await testCertificates()).caFile,
      PORT: '0',
    };
    const { stdout } = await run(bin, ['orgs', 'create', '--name', 'hooks', '--credits', '5', '--json'], {
      env: { ...process.env, ...env },
    });
    const headers = { authorization: `Bearer ${JSON.parse(stdout).apiKey}`, 'content-type': 'application/json' };

    const first = await start(['serve'], env, /listening on (http:\S+)/);
    children.push(first.child);
    let url = first.match[1]!;
    const endpoint = await (
      await fetch(`${url}/v1/webhook-endpoints`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: `${receiver.url}/hook`, enabledEvents: ['*'] }),
      })
    ).json();
    assert.match(endpoint.id, /^whe_/);
    await fetch(`${url}/v1/generations`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        mode: 'virtual-try-on',
        image: `${host.url}/photo.jpg`,
        products: [{ productId: 1, productTitle: 'Hat', imageUrl: `${host.url}/product.png` }],
      }),
    });
    const deadline = Date.now() + 30_000;
    while (receiver.requests.length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(receiver.requests.length, 1, 'the first attempt is in flight');
    first.child.kill('SIGKILL');
    await exited(first.child);

    const second = await start(['serve'], env, /listening on (http:\S+)/);
    children.push(second.child);
    url = second.match[1]!;
    while (receiver.requests.length < 2 && Date.now() < deadline + 30_000)
      await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(receiver.requests.length, 2, 'the attempt was made again after the restart');
    const [lost, delivered] = receiver.requests;
    assert.equal(delivered!.headers['webhook-id'], lost!.headers['webhook-id']);
    assert.deepEqual(delivered!.body, lost!.body);

    const eventId = String(delivered!.headers['webhook-id']);
    let event;
    do {
      event = await (await fetch(`${url}/v1/events/${eventId}`, { headers })).json();
    } while (
      event.deliveries[0].status === 'pending' &&
      (await new Promise((resolve) => setTimeout(resolve, 50, true)))
    );
    assert.equal(event.deliveries[0].status, 'succeeded');
    second.child.kill('SIGTERM');
    assert.equal(await exited(second.child), 0);
  });
});

for (const database of ['sqlite', 'postgres'] as const) {
  describe(`a worker killed in the middle of a visitor's erasure (${database})`, () => {
    // Batches of two generations with a pause between them: the kill lands between two commits.
    // The keyless routes are open wide: every request comes from 127.0.0.1 and one visitor.
    const open = { perSecond: 10_000, burst: 10_000 };
    const sandbox = crashSandbox(database, {
      visitorErasures: { batchSize: 2, batchPauseMs: 400 },
      widgets: { generationsPerIp: open, generationsPerVisitor: open, readsPerIp: open },
      conversions: { collectPerIp: open, collectPerVisitor: open },
      pluginOptions: { 'queue-db': { leaseMs: 2_000, pollIntervalMs: 100 } },
    });

    it('resumes after a restart and finishes: every kind erased exactly once, session ids kept across the crash', async () => {
      const { stdout } = await run(bin, ['orgs', 'create', '--name', 'erasure', '--credits', '50', '--json'], {
        env: { ...process.env, ...sandbox.env },
      });
      const shop = JSON.parse(stdout) as {
        organizationId: string;
        storeId: string;
        apiKey: string;
        conversionKey: string;
      };
      const headers = { authorization: `Bearer ${shop.apiKey}`, 'content-type': 'application/json' };
      const api = await start(
        ['serve'],
        { ...sandbox.env, VISUALIZER_WORKER_CONCURRENCY: '0' },
        /listening on (http:\S+)/,
      );
      sandbox.children.push(api.child);
      const url = api.match[1]!;
      const worker = await start(['worker'], sandbox.env, /worker running/);
      sandbox.children.push(worker.child);

      // A shopper visualizes eight times, each in a session of its own, is identified, and orders:
      // once with the visitor id, and once per session with the session id alone.
      const origin = 'https://shop.example';
      const widget = await (
        await fetch(`${url}/v1/widgets`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ storeId: shop.storeId, mode: 'virtual-try-on', allowedOrigins: [origin] }),
        })
      ).json();
      const visitorId = 'v-crash';
      const sessions = Array.from({ length: 8 }, (_, index) => `s-crash-${index}`);
      const generations: string[] = [];
      for (const sessionId of sessions) {
        const response = await fetch(`${url}/api/widgets/${widget.id}/generations`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin },
          body: JSON.stringify({
            visitorId,
            sessionId,
            image: `${sandbox.host.url}/photo.jpg`,
            products: [{ productId: 'sku-1', productTitle: 'Hat', imageUrl: `${sandbox.host.url}/product.png` }],
          }),
        });
        assert.equal(response.status, 202, await response.clone().text());
        generations.push((await response.json()).id);
      }
      const identify = await fetch(`${url}/api/collect`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', origin },
        body: JSON.stringify({
          type: '$identify',
          storeId: shop.storeId,
          visitorId,
          sessionId: 's-crash-identity',
          userId: 'customer-7',
        }),
      });
      assert.equal(identify.status, 202);
      const order = async (orderId: string, visitor: string, sessionId: string) => {
        const body = {
          orderId,
          storeId: shop.storeId,
          organizationId: shop.organizationId,
          visitorId: visitor,
          sessionId,
          totalCents: 1_000,
          currency: 'EUR',
          platform: 'custom',
          status: 'completed',
          orderCreatedAt: new Date().toISOString(),
          items: [],
        };
        const response = await fetch(`${url}/api/webhooks/orders`, {
          method: 'POST',
          headers: { authorization: `Bearer ${shop.conversionKey}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        assert.equal(response.status, 200, await response.text());
      };
      await order('by-visitor', visitorId, 's-crash-0');
      for (const sessionId of sessions) await order(`by-${sessionId}`, '', sessionId);
      await order('someone-else', 'v-other', 's-other');

      const visitor = async () => (await fetch(`${url}/v1/visitors/${visitorId}`, { headers })).json();
      const deadline = Date.now() + 60_000;
      let held = await visitor();
      while (
        held.generations.data.some((generation: { status: string }) => generation.status === 'processing') &&
        Date.now() < deadline
      ) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        held = await visitor();
      }
      assert.deepEqual([held.generations.total, held.identities.total, held.conversions.total], [8, 1, 9]);
      assert.ok(held.generations.data.every((generation: { status: string }) => generation.status === 'complete'));

      const requested = await fetch(`${url}/v1/visitors/${visitorId}`, { method: 'DELETE', headers });
      assert.equal(requested.status, 202);
      const { id } = await requested.json();
      const erasure = async () => (await fetch(`${url}/v1/visitor-erasures/${id}`, { headers })).json();

      // The first batch committed: the worker dies in the pause before the next.
      let seen = await erasure();
      while (seen.generationsDeleted === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        seen = await erasure();
      }
      worker.child.kill('SIGKILL');
      await exited(worker.child);
      const midway = await erasure();
      assert.equal(midway.status, 'pending', 'killed midway');
      assert.ok(
        midway.generationsDeleted >= 2 && midway.generationsDeleted < 8,
        `some generations deleted, not all: ${midway.generationsDeleted}`,
      );
      const left = await visitor();
      assert.equal(left.generations.total, 8 - midway.generationsDeleted, 'each batch committed whole, with its count');
      assert.equal(left.pendingErasure.id, id);

      // A new worker takes the job once the dead one's lease runs out, and finishes it.
      const successor = await start(['worker'], sandbox.env, /worker running/);
      sandbox.children.push(successor.child);
      let done = await erasure();
      while (done.status !== 'complete' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        done = await erasure();
      }
      assert.equal(done.status, 'complete');
      // Every kind exactly once: the eight session-only orders were found by the session ids collected
      // from generations deleted before the crash as well as after it.
      assert.deepEqual([done.generationsDeleted, done.identitiesDeleted, done.conversionsUnlinked], [8, 1, 9]);
      const after = await visitor();
      assert.deepEqual(
        [after.generations.total, after.identities.total, after.conversions.total, after.pendingErasure],
        [0, 0, 0, null],
      );
      for (const generationId of generations)
        assert.equal((await fetch(`${url}/v1/generations/${generationId}`, { headers })).status, 404);
      const conversions = (await (await fetch(`${url}/v1/conversions?limit=100`, { headers })).json()).data as Array<{
        orderId: string;
        visitorId: string | null;
        sessionId: string | null;
      }>;
      assert.equal(conversions.length, 10, 'every order is kept');
      for (const conversion of conversions) {
        const expected = conversion.orderId === 'someone-else' ? ['v-other', 's-other'] : [null, null];
        assert.deepEqual([conversion.visitorId, conversion.sessionId], expected, conversion.orderId);
      }
      assert.ok(
        !JSON.stringify(done).includes(visitorId) && !JSON.stringify(done).includes('s-crash'),
        'the audit record names nobody',
      );

      successor.child.kill('SIGTERM');
      assert.equal(await exited(successor.child), 0);
      api.child.kill('SIGTERM');
      assert.equal(await exited(api.child), 0);
    });
  });
}

for (const database of ['sqlite', 'postgres'] as const) {
  describe(`a worker killed part-way through deleting generations (${database})`, () => {
    // A short lease, so the next worker reclaims the purge the dead one held.
    const sandbox = crashSandbox(database, { pluginOptions: { 'queue-db': { leaseMs: 2_000, pollIntervalMs: 100 } } });

    it('leaves them deleted with their images half there, and the next worker deletes the rest; nothing is refunded or lost', async () => {
      const { stdout } = await run(bin, ['orgs', 'create', '--name', 'deletions', '--credits', '10', '--json'], {
        env: { ...process.env, ...sandbox.env },
      });
      const headers = { authorization: `Bearer ${JSON.parse(stdout).apiKey}`, 'content-type': 'application/json' };
      const api = await start(
        ['serve'],
        { ...sandbox.env, VISUALIZER_WORKER_CONCURRENCY: '0' },
        /listening on (http:\S+)/,
      );
      sandbox.children.push(api.child);
      const url = api.match[1]!;
      // Workers publish images at the API's own `/cdn/` URLs.
      const workerEnv = { ...sandbox.env, VISUALIZER_PUBLIC_URL: url };
      const renderer = await start(['worker'], workerEnv, /worker running/);
      sandbox.children.push(renderer.child);

      const ids = await createGenerations(url, headers, sandbox.host.url, 2);
      const images: string[] = [];
      for (const id of ids) {
        let generation = { status: 'processing', imageUrl: '', imageVariants: {} as Record<string, { url: string }> };
        const deadline = Date.now() + 60_000;
        while (generation.status === 'processing' && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          generation = await (await fetch(`${url}/v1/generations/${id}`, { headers })).json();
        }
        assert.equal(generation.status, 'complete');
        images.push(
          generation.imageUrl,
          ...Object.values(generation.imageVariants).flatMap((variant) => [
            variant.url,
            variant.url.replace(/\.jpg$/, '.webp'),
          ]),
        );
      }
      const statuses = () => Promise.all(images.map(async (image) => (await fetch(image)).status));
      assert.deepEqual(await statuses(), Array(14).fill(200));
      renderer.child.kill('SIGTERM');
      assert.equal(await exited(renderer.child), 0);

      // A worker whose deletes take 300 ms each, one job at a time: killed once the first generation's
      // seven images are deleted and the second's are being deleted.
      const slow = path.join(sandbox.dir, 'slow-delete.json');
      writeFileSync(
        slow,
        JSON.stringify({
          plugins: { cdn: path.join(import.meta.dirname, 'fixtures', 'slow-delete-cdn-plugin.ts') },
          pluginOptions: { 'slow-delete-local': { delayMs: 300 }, 'queue-db': { leaseMs: 2_000, pollIntervalMs: 100 } },
        }),
      );
      const doomed = await start(
        ['worker'],
        { ...workerEnv, VISUALIZER_CONFIG: slow, VISUALIZER_WORKER_CONCURRENCY: '1' },
        /worker running/,
      );
      sandbox.children.push(doomed.child);
      let deletes = 0;
      const secondGeneration = new Promise<void>((resolve) =>
        doomed.child.stdout!.on('data', (chunk: Buffer) => {
          deletes += String(chunk)
            .split('\n')
            .filter((line) => line.startsWith('deleting gen/')).length;
          if (deletes >= 8) resolve();
        }),
      );
      const balanceBefore = (await (await fetch(`${url}/v1/credits`, { headers })).json()).balance;
      for (const id of ids) {
        const deleted = await fetch(`${url}/v1/generations/${id}`, { method: 'DELETE', headers });
        assert.equal(deleted.status, 200);
      }
      await secondGeneration;
      doomed.child.kill('SIGKILL');
      await exited(doomed.child);

      const halfway = await statuses();
      assert.ok(halfway.includes(404) && halfway.includes(200), `some images were deleted, some not yet: ${halfway}`);
      for (const id of ids)
        assert.equal(
          (await fetch(`${url}/v1/generations/${id}`, { headers })).status,
          404,
          'the generation is deleted all the same',
        );

      const successor = await start(['worker'], workerEnv, /worker running/);
      sandbox.children.push(successor.child);
      const deadline = Date.now() + 30_000;
      let after = halfway;
      while (Date.now() < deadline && !after.every((status) => status === 404)) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        after = await statuses();
      }
      assert.deepEqual(after, Array(14).fill(404), 'every image is deleted after the restart');
      for (const id of ids) assert.equal((await fetch(`${url}/v1/generations/${id}`, { headers })).status, 404);
      assert.equal(
        (await (await fetch(`${url}/v1/credits`, { headers })).json()).balance,
        balanceBefore,
        'finished generations are not refunded',
      );
      const generationFolders = path.join(sandbox.dir, 'cdn', 'public', 'gen');
      assert.deepEqual(
        existsSync(generationFolders) ? readdirSync(generationFolders) : [],
        [],
        'no folder of theirs is left',
      );

      successor.child.kill('SIGTERM');
      assert.equal(await exited(successor.child), 0);
      api.child.kill('SIGTERM');
      assert.equal(await exited(api.child), 0);
    });
  });
}
