import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { decodeMemory, maxImageDecodeBytes } from '../core/imaging/decode-memory.ts';
import { createMemoryBudget } from '../core/imaging/memory-budget.ts';
import { bin } from './support/cli.ts';
import { startHttpsServer, testCertificates, type TestHttpsServer } from './support/https-server.ts';
import { interlacedPng } from './support/interlaced-png.ts';
import { waitFor } from './support/wait-for.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;

/** The bound the README states: image work holds at most `render.imageMemoryMb`; the process's RSS grows by at most that plus 100 MB. */
const imageMemoryMb = 512;
const bound = (imageMemoryMb + 100) * MiB;

const attack = await interlacedPng(12000, 12000, 16);
const dataUri = (bytes: Buffer, type: string) => `data:${type};base64,${bytes.toString('base64')}`;

describe('decode memory, read from the header', () => {
  it('counts the whole picture for an interlaced PNG and rows for a baseline one', async () => {
    const interlaced = await sharp(attack).metadata();
    assert.ok(decodeMemory(interlaced) >= 12000 * 12000 * 6, 'a 16-bit RGB picture held whole');
    const baseline = await sharp({ create: { width: 12000, height: 100, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    assert.ok(decodeMemory(await sharp(baseline).metadata()) < maxImageDecodeBytes);
  });

  it('counts the coefficients of a progressive JPEG, not of a baseline one', async () => {
    const image = sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#88aacc' } });
    const progressive = await sharp(await image.clone().jpeg({ progressive: true }).toBuffer()).metadata();
    const baseline = await sharp(await image.clone().jpeg().toBuffer()).metadata();
    assert.equal(decodeMemory(progressive) - decodeMemory(baseline), 4000 * 3000 * 1.5 * 2); // 4:2:0, 16-bit coefficients
  });
});

describe('a memory budget', () => {
  it('runs work within it at once and makes the rest wait, first come first served', async () => {
    const budget = createMemoryBudget(100 * MiB);
    const order: string[] = [];
    const gates = new Map<string, () => void>();
    const work = (name: string, megabytes: number) =>
      budget.reserve(megabytes * MiB, async () => {
        order.push(name);
        await new Promise<void>((resolve) => gates.set(name, resolve));
      });
    const runs = [work('a', 60), work('b', 60), work('c', 10)];
    await waitFor('a to start', () => order.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(order, ['a'], 'b does not fit beside a, and c waits behind b');
    gates.get('a')!();
    await waitFor('b and c to start', () => order.length === 3);
    assert.deepEqual(order, ['a', 'b', 'c']);
    gates.get('b')!();
    gates.get('c')!();
    await Promise.all(runs);
  });

  it('gives a waiter more than the whole budget all of it, alone', async () => {
    const budget = createMemoryBudget(10 * MiB);
    assert.equal(await budget.reserve(50 * MiB, async () => 'ran'), 'ran');
  });

  it('lets a waiter leave the line when its signal aborts, reserving nothing', async () => {
    const budget = createMemoryBudget(10 * MiB);
    let release!: () => void;
    const holder = budget.reserve(10 * MiB, () => new Promise<void>((resolve) => (release = resolve)));
    const controller = new AbortController();
    const waiter = budget.reserve(5 * MiB, async () => assert.fail('must not run'), controller.signal);
    controller.abort(new Error('stopping'));
    await assert.rejects(waiter, /stopping/);
    release();
    await holder;
    assert.equal(await budget.reserve(10 * MiB, async () => 'all of it is free again'), 'all of it is free again');
  });

  it('refuses a caller whose signal has already aborted, taking no place in line', async () => {
    const budget = createMemoryBudget(10 * MiB);
    const controller = new AbortController();
    controller.abort(new Error('stopped before asking'));
    await assert.rejects(
      budget.reserve(10 * MiB, async () => assert.fail('must not run'), controller.signal),
      /stopped before asking/,
    );
    assert.equal(await budget.reserve(10 * MiB, async () => 'all of it is free'), 'all of it is free');
  });
});

/** A field of /proc/PID/status, in bytes. */
function procStatus(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match![1]) * 1024;
}

/** How far the process's resident memory rises above where it is now while `work` runs (its peak, from /proc). */
async function peakGrowth(pid: number, work: () => Promise<void>): Promise<number> {
  writeFileSync(`/proc/${pid}/clear_refs`, '5'); // resets VmHWM to the current RSS
  const base = procStatus(pid, 'VmRSS');
  await work();
  return procStatus(pid, 'VmHWM') - base;
}

describe(`a serving process's memory under costly images (render.imageMemoryMb ${imageMemoryMb})`, () => {
  let dir: string;
  let images: TestHttpsServer;
  let child: ChildProcess;
  let url: string;
  let apiKey: string;
  let widgetId: string;
  const origin = 'https://shop.example';
  const product = { productId: 'p1', productTitle: 'Shirt' };

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-memory-'));
    const productPng = await sharp({ create: { width: 300, height: 300, channels: 4, background: '#aa3311ff' } })
      .png()
      .toBuffer();
    images = await startHttpsServer((req, res) => {
      const body = req.url === '/attack.png' ? attack : productPng;
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': body.length }).end(body);
    });
    const config = path.join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        render: { imageMemoryMb, maxAttempts: 1 },
        createDevOrganization: false,
        pluginOptions: { 'queue-db': { pollIntervalMs: 50 } },
        widgets: {
          generationsPerIp: { perSecond: 100, burst: 100 },
          generationsPerVisitor: { perSecond: 100, burst: 100 },
          readsPerIp: { perSecond: 1000, burst: 1000 },
        },
      }),
    );
    const env = {
      ...process.env,
      VISUALIZER_DATA_DIR: dir,
      VISUALIZER_CONFIG: config,
      VISUALIZER_OUTBOUND_ALLOW: 'localhost',
      NODE_EXTRA_CA_CERTS: (await testCertificates()).caFile,
      PORT: '0',
    };
    const org = JSON.parse(
      (await run(bin, ['orgs', 'create', '--name', 'memory', '--credits', '1000', '--json'], { env })).stdout,
    );
    apiKey = org.apiKey;
    child = spawn(bin, ['serve'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk) => {
        out += chunk;
        const match = /listening on (http:\S+)/.exec(out);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
    });
    const widget = await fetch(`${url}/v1/widgets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ storeId: org.storeId, mode: 'virtual-try-on', allowedOrigins: [origin] }),
    });
    widgetId = (await widget.json()).id;
  });

  after(async () => {
    child?.kill('SIGKILL');
    await images?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const createFromWidget = (photo: string, visitor: string) =>
    fetch(`${url}/api/widgets/${widgetId}/generations`, {
      method: 'POST',
      headers: { origin, 'content-type': 'application/json' },
      body: JSON.stringify({
        visitorId: visitor,
        sessionId: visitor,
        image: photo,
        products: [{ ...product, imageUrl: `${images.url}/product.png` }],
      }),
    });

  async function settled(path: string) {
    let generation = { status: 'processing', error: null as { code: string; message: string } | null };
    await waitFor(
      `${path} to end`,
      async () => {
        generation = await (
          await fetch(`${url}${path}`, { headers: { origin, authorization: `Bearer ${apiKey}` } })
        ).json();
        return generation.status !== 'processing';
      },
      120_000,
    );
    return generation;
  }

  it('refuses a 16-bit interlaced 12000×12000 PNG upload from the widget, alone and four at once, naming its cost', async () => {
    const photo = dataUri(attack, 'image/png');
    const growth = await peakGrowth(child.pid!, async () => {
      for (const batch of [1, 4]) {
        const answers = await Promise.all(
          Array.from({ length: batch }, (_, n) => createFromWidget(photo, `attack-${batch}-${n}`)),
        );
        for (const answer of answers) {
          const { error } = await answer.json();
          assert.equal(answer.status, 400);
          assert.deepEqual([error.code, error.param], ['invalid_image', 'image']);
          assert.match(
            error.message,
            /^image: An interlaced PNG of 12000×12000 pixels, 16 bits per sample, would need \d+ MB of memory to decode, more than the 256 MB an image may use/,
          );
        }
      }
    });
    assert.ok(growth < bound, `peak RSS grew by ${Math.round(growth / MiB)} MB`);
    const credits = await (await fetch(`${url}/v1/credits`, { headers: { authorization: `Bearer ${apiKey}` } })).json();
    assert.equal(credits.balance, 1000, 'nothing was charged');
  });

  it('fails a generation whose photo URL serves that PNG, with invalid_image, refunded', async () => {
    const growth = await peakGrowth(child.pid!, async () => {
      const created = await Promise.all(
        [0, 1, 2, 3].map(async () => {
          const response = await fetch(`${url}/v1/generations`, {
            method: 'POST',
            headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              mode: 'virtual-try-on',
              image: `${images.url}/attack.png`,
              products: [{ ...product, imageUrl: `${images.url}/product.png` }],
            }),
          });
          assert.equal(response.status, 202);
          return (await response.json()).id as string;
        }),
      );
      for (const id of created) {
        const generation = await settled(`/v1/generations/${id}`);
        assert.equal(generation.status, 'failed');
        assert.equal(generation.error!.code, 'invalid_image');
        assert.match(
          generation.error!.message,
          /interlaced PNG of 12000×12000 pixels.*would need \d+ MB of memory to decode/,
        );
      }
    });
    assert.ok(growth < bound, `peak RSS grew by ${Math.round(growth / MiB)} MB`);
    const credits = await (await fetch(`${url}/v1/credits`, { headers: { authorization: `Bearer ${apiKey}` } })).json();
    assert.equal(credits.balance, 1000, 'each failed generation was refunded');
  });

  it('renders four costly images at once within the budget: they take turns', async () => {
    // 6000×6000 RGBA, interlaced: about 230 MB each to decode and scale, so two fit in the budget at a time.
    const costly = await sharp({ create: { width: 6000, height: 6000, channels: 4, background: '#88aacc80' } })
      .png({ progressive: true })
      .toBuffer();
    const photo = dataUri(costly, 'image/png');
    const growth = await peakGrowth(child.pid!, async () => {
      const answers = await Promise.all([0, 1, 2, 3].map((n) => createFromWidget(photo, `costly-${n}`)));
      const ids = await Promise.all(
        answers.map(async (answer) => {
          assert.equal(answer.status, 202);
          return (await answer.json()).id as string;
        }),
      );
      const ends = await Promise.all(
        ids.map((id, n) => settled(`/api/widgets/${widgetId}/generations/${id}?visitorId=costly-${n}`)),
      );
      assert.deepEqual(
        ends.map((generation) => generation.status),
        ['complete', 'complete', 'complete', 'complete'],
      );
    });
    assert.ok(
      growth < bound,
      `peak RSS grew by ${Math.round(growth / MiB)} MB, over the stated ${imageMemoryMb} + 100 MB`,
    );
  });
});
