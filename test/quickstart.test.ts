/**
 * The README's quickstart, run as written: its ```sh blocks under "## Quickstart", in order, in one
 * bash, in a directory that looks like a fresh clone after `npm ci` (the checkout's files linked in,
 * no data directory). Only the ports change, so the run can sit beside anything else on the machine.
 * It must end with a complete generation whose `generation.completed` event `visualizer listen`
 * forwarded to `webhooks/receive-locally.ts`, which verified it; the receiver must refuse a delivery
 * that is not signed with listen's secret.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The ```sh blocks of the README's Quickstart section, in order. */
function quickstartBlocks(readme: string): string[] {
  const start = readme.search(/^## Quickstart\s*$/m);
  assert.ok(start >= 0, 'README.md has a "## Quickstart" section');
  const rest = readme.slice(start + 1);
  const end = rest.search(/^## /m);
  const section = end < 0 ? rest : rest.slice(0, end);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```\s*$/gm)].map((match) => match[1]!);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether any process of the group is still running. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A POST to the receiver with the headers of a delivery but a signature made with another secret. */
function forgedDelivery(port: number): Promise<number> {
  const body = JSON.stringify({
    id: 'evt_forged',
    type: 'generation.completed',
    createdAt: new Date().toISOString(),
    data: {},
  });
  const headers = {
    'content-type': 'application/json',
    'webhook-id': 'evt_forged',
    'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
    'webhook-signature': `v1,${Buffer.alloc(32, 7).toString('base64')}`,
  };
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, path: '/webhooks', method: 'POST', headers },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode!));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

describe('the README quickstart', () => {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'visualizer-quickstart-'));
  let pgid: number | undefined;

  after(async () => {
    if (pgid !== undefined && groupAlive(pgid)) {
      process.kill(-pgid, 'SIGTERM');
      for (let waited = 0; groupAlive(pgid) && waited < 15_000; waited += 100) await sleep(100);
      if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
    }
    rmSync(directory, { recursive: true, force: true });
  });

  it('runs offline on a fresh clone: a generation completes and listen forwards its webhook, which arrives verified', {
    timeout: 300_000,
  }, async () => {
    const blocks = quickstartBlocks(readFileSync(path.join(root, 'README.md'), 'utf8'));
    assert.ok(blocks.length >= 5, `the quickstart has its shell blocks (found ${blocks.length})`);

    // A fresh clone after `npm ci`: the checkout's files, but none of what running it leaves behind.
    const leftBehind = new Set([
      '.git',
      'data',
      'coverage',
      'visualizer.log',
      'listen.log',
      'webhooks.log',
      'photo.jpg',
      'generation.json',
    ]);
    for (const name of readdirSync(root)) {
      if (!leftBehind.has(name)) symlinkSync(path.join(root, name), path.join(directory, name));
    }

    const port = await freePort();
    const receiverPort = await freePort();
    // In one pass: replaced one after the other, a service port such as 40005 had its 4000 replaced too.
    const script = blocks
      .join('\n')
      .replaceAll(/:3000\b|\b4000\b/g, (found) => (found === ':3000' ? `:${port}` : String(receiverPort)));

    const env: NodeJS.ProcessEnv = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (!/^(VISUALIZER_|npm_|DATABASE_URL$|NODE_EXTRA_CA_CERTS$|GEMINI_API_KEY$|PORT$|HOST$|NODE_ENV$)/.test(name))
        env[name] = value;
    }
    Object.assign(env, {
      PORT: String(port),
      VISUALIZER_DATA_DIR: path.join(directory, 'data'),
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
    });

    const shell = spawn('bash', ['-e', '-c', script], {
      cwd: directory,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    pgid = shell.pid!;
    let output = '';
    shell.stdout.on('data', (chunk) => (output += chunk));
    shell.stderr.on('data', (chunk) => (output += chunk));
    const deadline = new AbortController();
    const code = await Promise.race([
      new Promise<number | null>((resolve) => shell.on('exit', (status) => resolve(status))),
      sleep(240_000, 'timed out' as const, { signal: deadline.signal }).catch(() => 'cancelled' as const),
    ]);
    deadline.abort();
    const read = (name: string) => {
      try {
        return readFileSync(path.join(directory, name), 'utf8');
      } catch {
        return '(none)';
      }
    };
    const diagnostics = `\n--- quickstart output ---\n${output}\n--- visualizer.log ---\n${read('visualizer.log')}\n--- listen.log ---\n${read('listen.log')}\n--- webhooks.log ---\n${read('webhooks.log')}`;
    assert.equal(code, 0, `the quickstart's blocks ran to the end${diagnostics}`);

    // The generation it created completed, as the API tells it.
    const apiKey = /visualizer_[A-Za-z0-9]{32}/.exec(read('visualizer.log'))?.[0];
    assert.ok(apiKey, `the first start printed an API key${diagnostics}`);
    const generationId = /agen_[A-Za-z0-9]{24}/.exec(output)?.[0];
    assert.ok(generationId, `the quickstart printed its generation's id${diagnostics}`);
    const base = `http://localhost:${port}`;
    const generation = (await (
      await fetch(`${base}/v1/generations/${generationId}`, { headers: { authorization: `Bearer ${apiKey}` } })
    ).json()) as {
      status: string;
      imageVariants: { detail: { url: string } };
      products: Array<{ imageUrl: string }>;
    };
    assert.equal(generation.status, 'complete', diagnostics);
    assert.equal(generation.products[0]!.imageUrl, `${base}/cdn/demo/tee-classic-red.png`);
    const detail = await fetch(generation.imageVariants.detail.url);
    assert.equal(detail.status, 200);
    assert.equal(detail.headers.get('content-type'), 'image/jpeg');

    // The receiver printed the verified event, and it is the service's event for that generation.
    const line = read('webhooks.log')
      .split('\n')
      .find((text) => text.startsWith('verified generation.completed'));
    assert.ok(line, `the receiver printed a verified generation.completed${diagnostics}`);
    const [, type, eventId, dataId, status, url] = line.split(' ');
    assert.deepEqual(
      [type, dataId, status, url],
      ['generation.completed', generationId, 'complete', generation.imageVariants.detail.url],
    );
    const event = (await (
      await fetch(`${base}/v1/events/${eventId}`, { headers: { authorization: `Bearer ${apiKey}` } })
    ).json()) as {
      type: string;
      data: { id: string };
      deliveries: unknown[];
    };
    assert.equal(event.type, 'generation.completed');
    assert.equal(event.data.id, generationId);
    // listen, not a registered endpoint, brought it: it printed the receiver's answer.
    assert.deepEqual(event.deliveries, []);
    assert.match(
      read('listen.log'),
      new RegExp(`^\\S+\\s+generation\\.completed\\s+${eventId}\\s+204$`, 'm'),
      diagnostics,
    );

    // "verified" means something: a delivery signed with another secret is refused and reported.
    assert.equal(await forgedDelivery(receiverPort), 400);
    await sleep(200);
    assert.match(read('webhooks.log'), /^rejected POST \/webhooks: No matching signature found$/m);
  });
});
