import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { gradientPhoto, productImage, startHttpsReceiver, waitFor, type HttpsReceiver } from 'visualizer/testing';
import { startFakeRemote, type FakeRemote } from './fake-remote.ts';

const exampleDir = path.resolve(import.meta.dirname, '..');

/**
 * The service as a user runs it, `visualizer serve` from the installed package's bin, with this
 * engine chosen by module path in VISUALIZER_RENDERER and its options in the config file.
 */
describe('visualizer serve with the remote engine', { timeout: 120_000 }, () => {
  let remote: FakeRemote;
  /** The shop's product image, served over HTTPS on loopback as a shop's would be on the internet. */
  let shop: HttpsReceiver;
  let dataDir: string;
  let server: ChildProcess;
  let baseUrl: string;
  let apiKey: string;
  const output: string[] = [];

  before(async () => {
    remote = await startFakeRemote({ apiKey: 'service-key' });
    const scarf = await productImage('#2e8b57');
    shop = await startHttpsReceiver(
      (_request, response) => void response.writeHead(200, { 'content-type': 'image/png' }).end(scarf),
    );
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-remote-engine-serve-'));
    const caFile = path.join(dataDir, 'test-ca.pem');
    writeFileSync(caFile, shop.caPem);
    const configFile = path.join(dataDir, 'visualizer.json');
    writeFileSync(
      configFile,
      JSON.stringify({ pluginOptions: { 'remote-engine': { baseUrl: remote.url, timeoutMs: 30_000 } } }),
    );
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      VISUALIZER_DATA_DIR: dataDir,
      VISUALIZER_CONFIG: configFile,
      // A relative module path is resolved from the working directory: this package's folder.
      VISUALIZER_RENDERER: './index.ts',
      REMOTE_ENGINE_API_KEY: 'service-key',
      // The shop's server is on loopback, which the service refuses to fetch from unless allowed.
      VISUALIZER_OUTBOUND_ALLOW: 'localhost',
      NODE_EXTRA_CA_CERTS: caFile,
    };
    for (const name of ['DATABASE_URL', 'VISUALIZER_PUBLIC_URL', 'VISUALIZER_CDN']) delete env[name];
    server = spawn(path.join(exampleDir, 'node_modules/.bin/visualizer'), ['serve'], {
      cwd: exampleDir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    const lines = createInterface({ input: server.stdout! });
    lines.on('line', (line) => {
      output.push(line);
      apiKey ??= /^\s*apiKey\s+(visualizer_\S+)/.exec(line)?.[1] as string;
      baseUrl ??= /^Visualizer listening on (\S+) /.exec(line)?.[1] as string;
    });
    const exited = once(server, 'exit').then(([code]) =>
      assert.fail(`serve exited with ${code}:\n${output.join('\n')}`),
    );
    await Promise.race([waitFor('serve to listen', () => Boolean(baseUrl), 60_000), exited]);
    assert.ok(apiKey, `the first start printed the development organization's key:\n${output.join('\n')}`);
  });

  after(async () => {
    if (server?.exitCode === null) {
      server.kill('SIGTERM');
      await once(server, 'exit');
    }
    await remote?.close();
    await shop?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('completes a generation rendered by the remote API', async () => {
    const created = await fetch(`${baseUrl}/v1/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        mode: 'virtual-try-on',
        image: `data:image/jpeg;base64,${(await gradientPhoto()).toString('base64')}`,
        imageSize: '1K',
        products: [
          { productId: 'sku-1', productTitle: 'Green scarf', imageUrl: `${shop.url}/products/green-scarf.png` },
        ],
      }),
    });
    const accepted = (await created.json()) as { id: string };
    assert.equal(created.status, 202, JSON.stringify(accepted));

    let generation: { status: string; imageUrl: string | null } = { status: 'processing', imageUrl: null };
    // One request a quarter second: the API's read limit is for shops, not for a test's loop.
    await waitFor(
      'the generation to finish',
      async () => {
        const response = await fetch(`${baseUrl}/v1/generations/${accepted.id}`, {
          headers: { authorization: `Bearer ${apiKey}` },
        });
        generation = (await response.json()) as typeof generation;
        return generation.status !== 'processing';
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    assert.equal(generation.status, 'complete', `${JSON.stringify(generation)}\n${output.join('\n')}`);
    // The stored result, from the service's own CDN route (its public URL names localhost).
    const result = await fetch(`${baseUrl}${new URL(generation.imageUrl!).pathname}`);
    assert.equal(result.status, 200);
    assert.match(result.headers.get('content-type') ?? '', /^image\//);
    await result.arrayBuffer();
    assert.equal(remote.received.length, 1, 'one request reached the remote API');
    assert.equal(remote.received[0]!.authorization, 'Bearer service-key', 'with the key from REMOTE_ENGINE_API_KEY');
    assert.deepEqual(
      remote.received[0]!.body.products.map(({ title }) => title),
      ['Green scarf'],
    );
  });
});
