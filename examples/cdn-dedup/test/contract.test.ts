import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Logger } from 'visualizer/plugin';
import { imageCdnContract, productImage } from 'visualizer/testing';
import dedupPlugin, { collectGarbage, createDedupCdn } from '../index.ts';

const tempDir = () => mkdtempSync(path.join(os.tmpdir(), 'visualizer-cdn-dedup-'));

// The same suite every built-in image CDN runs; it serves public URLs as the app's /cdn/ route would.
let contractRoot: string;
imageCdnContract({
  name: 'dedup',
  create: ({ publicUrl }) => createDedupCdn({ root: (contractRoot = tempDir()), publicBaseUrl: publicUrl }),
  dispose: () => rmSync(contractRoot, { recursive: true, force: true }),
});

describe('dedup cdn', () => {
  let root: string;
  let red: Uint8Array;
  let blue: Uint8Array;
  const blobs = () => readdirSync(path.join(root, 'blobs')).filter((name) => !name.startsWith('.'));
  const cdn = () => createDedupCdn({ root, publicBaseUrl: 'https://shop.example' });
  before(async () => {
    root = tempDir();
    red = new Uint8Array(await productImage('#ff0000'));
    blue = new Uint8Array(await productImage('#0000ff'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('stores the same bytes once, whatever the keys and visibilities', async () => {
    const store = cdn();
    await store.put('dedup/a/detail.png', red, { contentType: 'image/png', visibility: 'public' });
    await store.put('dedup/b/detail.png', red, { contentType: 'image/png', visibility: 'public' });
    await store.put('dedup/c/photo.png', red, { contentType: 'image/png', visibility: 'private' });
    assert.equal(blobs().length, 1, 'one blob for three keys');
    const inode = (file: string) => statSync(path.join(root, file)).ino;
    assert.equal(inode('public/dedup/a/detail.png'), inode('public/dedup/b/detail.png'));
    assert.equal(inode('private/dedup/c/photo.png'), inode('public/dedup/a/detail.png'));
  });

  it("keeps every other key's bytes when one key is overwritten or deleted", async () => {
    const store = cdn();
    await store.put('keep/a.png', red, { contentType: 'image/png', visibility: 'public' });
    await store.put('keep/b.png', red, { contentType: 'image/png', visibility: 'public' });
    await store.put('keep/a.png', blue, { contentType: 'image/png', visibility: 'public' });
    await store.delete('keep/b.png', 'public');
    assert.deepEqual(Buffer.from((await store.get('keep/a.png', 'public'))!.body), Buffer.from(blue));
    assert.deepEqual(Buffer.from((await store.get('dedup/a/detail.png', 'public'))!.body), Buffer.from(red));
  });

  it('collects the blobs no key links to, once no write has touched them for an hour', async () => {
    const store = cdn();
    await store.put('gc/only.png', blue, { contentType: 'image/png', visibility: 'private' });
    const before = blobs().length;
    await store.delete('gc/only.png', 'private');
    await store.delete('keep/a.png', 'public'); // the last key holding the blue image
    assert.equal(await collectGarbage(root), 0, 'a blob written just now is kept: a put may be about to link it');
    const old = new Date(Date.now() - 2 * 3_600_000);
    for (const name of blobs()) utimesSync(path.join(root, 'blobs', name), old, old);
    assert.equal(await collectGarbage(root), 1, 'the blue blob went');
    assert.equal(blobs().length, before - 1);
    assert.ok(await store.get('dedup/a/detail.png', 'public'), 'linked blobs stay');
  });

  it('registers as the cdn plugin, in the folder the service gives it, refusing options it does not know', async () => {
    const dataDir = tempDir();
    const logger: Logger = { info() {}, warn() {}, error() {} };
    const context = { logger, outbound: undefined as never, port: () => assert.fail('needs no other port') };
    // What the service fills in for `{ "dir": "images" }`: the folder under its data dir, its public URL.
    const options = { dir: path.join(dataDir, 'images'), publicBaseUrl: 'https://viz.example' };
    try {
      assert.deepEqual(dedupPlugin.provides, ['cdn']);
      assert.deepEqual(dedupPlugin.sharedSettings, {
        dir: { underDataDir: 'cdn-dedup' },
        publicBaseUrl: { from: 'publicUrl' },
      });
      const { cdn: registered } = await dedupPlugin.register({ ...context, options });
      assert.equal(registered.publicUrl('a/b.png'), 'https://viz.example/cdn/a/b.png');
      assert.equal(registered.servedByApp, true);
      await registered.put('a/b.png', red, { contentType: 'image/png', visibility: 'public' });
      assert.ok(statSync(path.join(dataDir, 'images/public/a/b.png')).isFile());
      await assert.rejects(
        async () => dedupPlugin.register({ ...context, options: { ...options, directory: 'x' } as never }),
        /unknown settings: directory/,
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
