import assert from 'node:assert/strict';
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { bin, cli, startCli as start } from './support/cli.ts';
import { startImageHost } from './support/generation-app.ts';
import { testCertificates, type TestHttpsServer } from './support/https-server.ts';
import { waitFor } from './support/wait-for.ts';

const run = promisify(execFile);

const stopAll = async (children: ChildProcess[]) => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
};

describe('serve --api-only', () => {
  let dir = '';
  let host: TestHttpsServer;
  let env: Record<string, string> = {};
  const children: ChildProcess[] = [];

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-roles-'));
    host = await startImageHost();
    const config = path.join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ pluginOptions: { 'queue-db': { pollIntervalMs: 100 } } }));
    env = {
      VISUALIZER_DATA_DIR: dir,
      VISUALIZER_CONFIG: config,
      VISUALIZER_OUTBOUND_ALLOW: 'localhost',
      NODE_EXTRA_CA_CERTS: (await testCertificates()).caFile,
      PORT: '0',
    };
  });
  after(async () => {
    await stopAll(children);
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the API without rendering; a worker process renders what it accepted', async () => {
    const { stdout } = await run(bin, ['orgs', 'create', '--name', 'roles', '--credits', '5', '--json'], {
      env: { ...process.env, ...env },
    });
    const headers = { authorization: `Bearer ${JSON.parse(stdout).apiKey}`, 'content-type': 'application/json' };

    const api = start(['serve', '--api-only'], env);
    children.push(api.child);
    await waitFor('the API-only banner', () => /API only \(--api-only\)/.test(api.output.stdout), 60_000);
    const url = /listening on (http:\S+) \(public URL \S+; API only\)/.exec(api.output.stdout)?.[1];
    assert.ok(url, api.output.stdout);
    assert.match(
      api.output.stdout,
      /^API only \(--api-only\): no workers and no scheduler in this process\. Webhooks are delivered and renders run only by `visualizer worker` processes/m,
    );
    assert.match(
      api.output.stderr,
      /^Warning: No worker is running on this database: renders and webhook deliveries wait until one starts\./m,
    );

    const created = await fetch(`${url}/v1/generations`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        mode: 'virtual-try-on',
        image: `${host.url}/photo.jpg`,
        products: [{ productId: 1, productTitle: 'Shirt', imageUrl: `${host.url}/product.png` }],
      }),
    });
    assert.equal(created.status, 202);
    const { id } = await created.json();
    const status = async () =>
      (await (await fetch(`${url}/v1/generations/${id}`, { headers })).json()).status as string;

    // Several queue polls long: a process with workers would have fetched the photo by now.
    await sleep(1_000);
    assert.equal(host.requests.length, 0, 'no render started in the API-only process');
    assert.equal(await status(), 'processing');

    const worker = start(['worker'], env);
    children.push(worker.child);
    await waitFor('the worker rendering the accepted generation', async () => (await status()) === 'complete', 60_000);

    worker.child.kill('SIGTERM');
    api.child.kill('SIGTERM');
    assert.equal(await worker.exited, 0);
    assert.equal(await api.exited, 0);
  });

  it('VISUALIZER_WORKER_CONCURRENCY=0 serve still runs the API with no render workers', async () => {
    const api = start(['serve'], { ...env, VISUALIZER_WORKER_CONCURRENCY: '0' });
    children.push(api.child);
    await waitFor('the banner', () => /listening on/.test(api.output.stdout), 60_000);
    assert.match(
      api.output.stdout,
      /listening on http:\S+ \(public URL \S+; renders nothing itself: no render workers, `visualizer worker` processes render\)/,
    );
    assert.doesNotMatch(api.output.stdout, /API only/);
    api.child.kill('SIGTERM');
    assert.equal(await api.exited, 0);
  });

  it('is in the usage, and takes no value', async () => {
    const help = await cli(['serve', '--help'], {});
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: visualizer serve \[--api-only\]/);
    const wrong = await cli(['serve', '--api-only=yes'], { VISUALIZER_DATA_DIR: dir });
    assert.equal(wrong.code, 2);
  });
});
