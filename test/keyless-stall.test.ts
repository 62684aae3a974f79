import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { bearer, startTestApp, type TestApp } from './support/app.ts';

/**
 * One anonymous request must not hold the event loop, and with it every tenant: a 12 MB body of a
 * million keys to the keyless widget route is refused from its first 64 KB and never parsed (parsed
 * and validated, it held the loop for a second or more), so /healthz keeps answering.
 */
const shopOrigin = 'https://shop.example';

/**
 * Builds that body, says "ready", then for each line `<count> <local address>` on stdin sends it
 * `count` times at once from that address (writing each whole while reading) and prints the
 * answers' statuses (0: reset before an answer).
 */
const senderScript = `
const net = require('node:net');
const readline = require('node:readline');
const [url, path] = process.argv.slice(1);
const body = Buffer.from('{' + Array.from({ length: 1e6 }, (_, i) => '"k' + i + '":1').join(',') + '}');
const head = 'POST ' + path + ' HTTP/1.1\\r\\nhost: x\\r\\norigin: ${shopOrigin}\\r\\ncontent-type: application/json\\r\\ncontent-length: ' + body.length + '\\r\\n\\r\\n';
const { hostname, port } = new URL(url);
const send = (localAddress) => new Promise((resolve) => {
  const socket = net.connect({ port: Number(port), host: hostname, localAddress });
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk) => {
    text += chunk;
    if (!text.includes('\\r\\n\\r\\n')) return;
    socket.destroy();
    resolve(Number(text.split(' ')[1]));
  });
  socket.on('error', () => resolve(0)).on('close', () => resolve(0));
  socket.write(head);
  socket.write(body, () => {});
});
readline.createInterface({ input: process.stdin }).on('line', async (line) => {
  const [count, address] = line.split(' ');
  console.log(JSON.stringify(await Promise.all(Array.from({ length: Number(count) }, () => send(address)))));
});
console.log('ready');
`;

describe('a keyless body built to stall the server', () => {
  let app: TestApp;
  let path: string;

  before(async () => {
    // The configured per-address limits: each attempt below comes from one loopback address.
    app = await startTestApp();
    const { apiKey, store } = await app.tenants.createOrganization({ name: 'Stalled', credits: 10 });
    const response = await fetch(`${app.url}/v1/widgets`, {
      method: 'POST',
      headers: { ...bearer(apiKey.key), 'content-type': 'application/json' },
      body: JSON.stringify({ storeId: store.id, mode: 'virtual-try-on', allowedOrigins: [shopOrigin] }),
    });
    path = `/api/widgets/${(await response.json()).id}/generations`;
  });
  after(() => app.close());

  /** The sender, in a process of its own as an attacker would be, its body built before anything is timed. */
  async function startSender() {
    const child = spawn(process.execPath, ['-e', senderScript, app.url, path], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout });
    const next = () => new Promise<string>((resolve) => lines.once('line', resolve));
    assert.equal(await next(), 'ready');
    return {
      async send(count: number, address: string) {
        child.stdin.write(`${count} ${address}\n`);
        return JSON.parse(await next()) as number[];
      },
      stop: () => child.kill(),
    };
  }

  /**
   * The slowest /healthz answer while `work` runs, one asked every 10 ms whether or not the last was
   * answered. Each is timed from when its timer was due, so a blocked event loop, which delays the
   * timer too, counts in full.
   */
  async function slowestHealthCheck(work: () => Promise<unknown>) {
    const agent = new Agent({ keepAlive: true });
    let slowest = 0;
    const ask = (onAnswer: () => void) =>
      new Promise<void>((resolve) => {
        request(`${app.url}/healthz`, { agent }, (res) =>
          res.resume().on('end', () => {
            onAnswer();
            resolve();
          }),
        )
          .on('error', () => {
            slowest = Infinity; // not answered at all
            resolve();
          })
          .end();
      });
    // Its connections opened first, as a health checker keeps its own alive.
    await Promise.all(Array.from({ length: 5 }, () => ask(() => {})));
    const pending = new Set<Promise<void>>();
    let due = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const check = () => {
      const askedAt = due;
      due = performance.now() + 10;
      timer = setTimeout(check, 10);
      const answered = ask(() => (slowest = Math.max(slowest, performance.now() - askedAt)));
      pending.add(answered);
      void answered.finally(() => pending.delete(answered));
    };
    check();
    try {
      await work();
    } finally {
      clearTimeout(timer);
      await Promise.all(pending);
      agent.destroy();
    }
    return slowest;
  }

  it('answers a 12 MB body of a million keys, once and 20 at once from one address, while /healthz answers within a second', async () => {
    const sender = await startSender();
    // Parsing such a body on the event loop holds it for seconds (JSON.parse of a million keys), in
    // every attempt; a loaded CI host delays /healthz by a hundred milliseconds or so beside 20
    // streams. So one attempt under a second tells the two apart.
    const boundMs = 1_000;
    const attempts: Array<{ once: number | string; burst: number | string }> = [];
    const shown = (ms: number) => (Number.isFinite(ms) ? Math.round(ms) : 'no answer');
    try {
      // Untimed, as a server that has been running: the first requests compile the code they run.
      await sender.send(20, '127.0.0.9');
      for (const address of ['127.0.0.2', '127.0.0.3', '127.0.0.4']) {
        let first: number[] = [];
        let rest: number[] = [];
        const once = await slowestHealthCheck(async () => (first = await sender.send(1, address)));
        const burst = await slowestHealthCheck(async () => (rest = await sender.send(20, address)));
        attempts.push({ once: shown(once), burst: shown(burst) });
        if (once >= boundMs || burst >= boundMs) continue;
        assert.deepEqual(first, [413]);
        // The address's burst of 20 widget generations: the one above and 19 more, then 429.
        assert.deepEqual(rest.toSorted(), [...Array(19).fill(413), 429]);
        return;
      }
      assert.fail(
        `/healthz took ${boundMs} ms or more beside such bodies in every attempt (slowest answers, ms): ${JSON.stringify(attempts)}`,
      );
    } finally {
      sender.stop();
    }
  });
});
