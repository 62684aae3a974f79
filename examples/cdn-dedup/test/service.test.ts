import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { gradientPhoto, productImage, waitFor } from 'visualizer/testing';
import { createDedupCdn } from '../index.ts';

const exampleDir = path.resolve(import.meta.dirname, '..');

/**
 * The service as a user runs it, `visualizer serve` from the installed package's bin, with this
 * plugin chosen by module path in its config file.
 */
describe('visualizer serve with the dedup cdn', { timeout: 120_000 }, () => {
  let dataDir: string;
  let server: ChildProcess;
  let baseUrl: string;
  /** The base of the service's own URLs (CDN links): http://localhost:PORT unless configured. */
  let publicUrl: string;
  let apiKey: string;
  const output: string[] = [];

  before(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-cdn-dedup-serve-'));
    const configFile = path.join(dataDir, 'visualizer.json');
    // A relative module path is resolved from the working directory: this package's folder.
    writeFileSync(
      configFile,
      JSON.stringify({ plugins: { cdn: './index.ts' }, pluginOptions: { dedup: { dir: 'images' } } }),
    );
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      VISUALIZER_DATA_DIR: dataDir,
      VISUALIZER_CONFIG: configFile,
    };
    for (const name of ['DATABASE_URL', 'VISUALIZER_PUBLIC_URL', 'VISUALIZER_CDN', 'VISUALIZER_RENDERER'])
      delete env[name];
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
      const listening = /^Visualizer listening on (\S+) \(public URL ([^;]+);/.exec(line);
      if (listening) [, baseUrl, publicUrl] = listening as unknown as [string, string, string];
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
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('completes a generation whose images are all stored by the plugin', async () => {
    // The product image goes onto the service's own CDN (the plugin's folder), so the generation reads it from storage.
    const cdn = createDedupCdn({ root: path.join(dataDir, 'images'), publicBaseUrl: publicUrl });
    // Public URLs name localhost; requests go to the address the server listens on.
    const fetchPublic = (url: string) => fetch(url.replace(publicUrl, baseUrl));
    const product = await cdn.put('products/red-shirt.png', new Uint8Array(await productImage('#c0392b')), {
      contentType: 'image/png',
      visibility: 'public',
    });
    const served = await fetchPublic(product.url!);
    assert.equal(served.status, 200, 'the service serves what the plugin stored');
    await served.arrayBuffer();

    const photo = `data:image/jpeg;base64,${(await gradientPhoto()).toString('base64')}`;
    const created = await fetch(`${baseUrl}/v1/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        mode: 'virtual-try-on',
        image: photo,
        imageSize: '1K',
        products: [{ productId: 'sku-1', productTitle: 'Red shirt', imageUrl: product.url }],
      }),
    });
    const accepted = (await created.json()) as { id: string; status: string };
    assert.equal(created.status, 202, JSON.stringify(accepted));

    let generation: { status: string; imageUrl: string | null; errorMessage?: string | null } = {
      status: 'processing',
      imageUrl: null,
    };
    await waitFor(
      'the generation to finish',
      async () => {
        const response = await fetch(`${baseUrl}/v1/generations/${accepted.id}`, {
          headers: { authorization: `Bearer ${apiKey}` },
        });
        generation = (await response.json()) as typeof generation;
        return generation.status !== 'processing';
      },
      60_000,
    );
    assert.equal(generation.status, 'complete', JSON.stringify(generation));
    const { imageUrl } = generation;
    assert.ok(imageUrl, 'the complete generation has its image');
    assert.ok(imageUrl.startsWith(`${publicUrl}/cdn/gen/`), `the result is on the app-served CDN: ${imageUrl}`);

    const result = await fetchPublic(imageUrl);
    assert.equal(result.status, 200);
    assert.match(result.headers.get('content-type') ?? '', /^image\//);
    const bytes = Buffer.from(await result.arrayBuffer());
    const stored = await cdn.get(imageUrl.slice(`${publicUrl}/cdn/`.length), 'public');
    assert.ok(stored, 'the plugin holds the result under its key');
    assert.deepEqual(bytes, Buffer.from(stored.body), 'and the service served those bytes');
  });

  it('stops on SIGTERM, releasing the plugin with the rest', async () => {
    const exited = once(server, 'exit');
    server.kill('SIGTERM');
    const [code] = await exited;
    assert.equal(code, 0, output.join('\n'));
  });
});
