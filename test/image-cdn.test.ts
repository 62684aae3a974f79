import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fsPromises from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import * as v from 'valibot';
import { loadConfig } from '../config/load.ts';
import { assertSafeKey, contentTypeForKey, isSafeKey } from '../core/domain/blob-keys.ts';
import type { ImageCdn } from '../core/ports/image-cdn.ts';
import localPlugin from '../plugins/cdn-local/index.ts';
import { createLocalCdn } from '../plugins/cdn-local/local-cdn.ts';
import s3Plugin from '../plugins/cdn-s3/index.ts';
import { createS3Cdn, type S3CdnOptions } from '../plugins/cdn-s3/s3-cdn.ts';
import { imageCdnContract, unsafeKeys } from 'visualizer/testing';
import { pluginContext } from '../kit/testing/plugin-context.ts';
import { validatedOptions } from '../core/plugin-host.ts';
import { startS3rver } from './support/s3-server.ts';

const tempDir = (prefix: string) => mkdtempSync(path.join(os.tmpdir(), prefix));
const png = new Uint8Array(
  await sharp({ create: { width: 4, height: 3, channels: 3, background: '#c0ffee' } })
    .png()
    .toBuffer(),
);

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(directory, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

// The suite serves public URLs from `get` as the app's /cdn/ route does, at the base it passes.
let localRoot: string;
imageCdnContract({
  name: 'local',
  create: ({ publicUrl }) =>
    createLocalCdn({ root: (localRoot = tempDir('visualizer-cdn-')), publicBaseUrl: publicUrl }),
  dispose: () => rmSync(localRoot, { recursive: true, force: true }),
});

/** One s3rver for every S3 suite. */
let s3server: ReturnType<typeof startS3rver> | undefined;
const s3Endpoint = async () => (await (s3server ??= startS3rver('visualizer-test'))).endpoint;
after(async () => (await s3server)?.close());

const s3Options = (endpoint: string, extra: Partial<S3CdnOptions> = {}): S3CdnOptions => ({
  bucket: 'visualizer-test',
  region: 'us-east-1',
  endpoint,
  accessKeyId: 'S3RVER',
  secretAccessKey: 'S3RVER',
  ...extra,
});

// s3rver serves GETs without credentials, like a bucket whose policy makes `public/*` readable;
// the public URLs are therefore fetched anonymously, as a browser would.
imageCdnContract({
  name: 's3 (s3rver)',
  create: async () => createS3Cdn(s3Options(await s3Endpoint(), { listPageSize: 2 })),
});

// The same bucket behind a CDN domain: public URLs name the domain, whose origin is the public
// prefix; the fixture plays the CDN by mapping the domain onto that prefix.
const cdnDomain = 'https://images.example.test';
imageCdnContract({
  name: 's3 behind a CDN domain',
  create: async () => createS3Cdn(s3Options(await s3Endpoint(), { publicBaseUrl: cdnDomain })),
  fetchPublic: async (url) => fetch(url.replace(`${cdnDomain}/`, `${await s3Endpoint()}/visualizer-test/public/`)),
});

describe('blob keys', () => {
  it('accepts the keys the core makes', () => {
    for (const key of [
      'gen/agen_0123456789abcdefghijklmn/k7Qp-x_Y/detail.webp',
      'uploads/abc/photo.jpg',
      'a.png',
      'a/b.c/d.JPEG',
    ]) {
      assert.doesNotThrow(() => assertSafeKey(key), key);
    }
  });

  it('refuses keys that could escape a root, with a message saying why', () => {
    for (const key of [...unsafeKeys, 'a/.png', 'a/b.png\0', `${'a'.repeat(509)}.png`])
      assert.equal(isSafeKey(key), false, JSON.stringify(key));
    assert.throws(
      () => assertSafeKey('../x.png'),
      /Unsafe blob key "\.\.\/x\.png": it must not contain a "\.\." segment/,
    );
    assert.throws(() => assertSafeKey('a/b.png?x'), /may only contain/);
    assert.throws(() => assertSafeKey('noext'), /must end in a file extension/);
    assert.doesNotThrow(() => assertSafeKey(`${'a'.repeat(508)}.png`), 'exactly 512 characters is allowed');
  });

  it('maps image extensions to content types', () => {
    assert.equal(contentTypeForKey('a/b.jpg'), 'image/jpeg');
    assert.equal(contentTypeForKey('a/b.JPEG'), 'image/jpeg');
    assert.equal(contentTypeForKey('a/b.png'), 'image/png');
    assert.equal(contentTypeForKey('a/b.webp'), 'image/webp');
    assert.equal(contentTypeForKey('a/b.gif'), 'image/gif');
    assert.equal(contentTypeForKey('a/b.avif'), 'image/avif');
    assert.equal(contentTypeForKey('a/b.tiff'), 'image/tiff');
    assert.equal(contentTypeForKey('a/b.TIF'), 'image/tiff');
    assert.equal(contentTypeForKey('a/b.bin'), 'application/octet-stream');
  });
});

describe('local CDN', () => {
  let root: string;
  let cdn: ImageCdn;
  before(() => {
    root = tempDir('visualizer-cdn-');
    cdn = createLocalCdn({ root, publicBaseUrl: 'https://shop.example/' });
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('is served by the app at /cdn/<key>', async () => {
    assert.equal(cdn.servedByApp, true);
    assert.equal(cdn.publicUrl('gen/a/detail.webp'), 'https://shop.example/cdn/gen/a/detail.webp');
  });

  it('keeps public and private files in separate trees and leaves no temporary files', async () => {
    await cdn.put('gen/agen_1/detail.png', png, { contentType: 'image/png', visibility: 'public' });
    await cdn.put('uploads/x.jpg', png, { contentType: 'image/jpeg', visibility: 'private' });
    await cdn.put('uploads/x.jpg', png, { contentType: 'image/jpeg', visibility: 'private' });
    assert.deepEqual(filesUnder(root), ['private/uploads/x.jpg', 'public/gen/agen_1/detail.png']);
    assert.deepEqual(readFileSync(path.join(root, 'public/gen/agen_1/detail.png')), Buffer.from(png));
  });

  it('cannot reach a private object through a crafted public key', async () => {
    await cdn.put('uploads/secret.jpg', png, { contentType: 'image/jpeg', visibility: 'private' });
    for (const crafted of [
      '../private/uploads/secret.jpg',
      'x/../../private/uploads/secret.jpg',
      '..%2fprivate/uploads/secret.jpg',
      '..\\private\\uploads\\secret.jpg',
    ]) {
      await assert.rejects(cdn.get(crafted, 'public'), /Unsafe blob key/, crafted);
    }
    // A well-formed key naming "private/…" stays inside the public tree.
    assert.equal(await cdn.get('private/uploads/secret.jpg', 'public'), null);
    assert.ok(await cdn.get('uploads/secret.jpg', 'private'));
  });

  // Not in the contract: the S3 test server (s3rver) writes objects in place, so racing PUTs can
  // interleave there, while real S3 replaces objects atomically. Locally, temp file + rename must.
  it('never shows a reader a torn object while writes of the key race', async () => {
    const big = (seed: number) =>
      sharp({ create: { width: 512, height: 512, channels: 3, background: { r: seed, g: 40, b: 90 } } })
        .png({ compressionLevel: 0 })
        .toBuffer();
    const [first, second] = await Promise.all([big(10), big(200)]);
    const key = 'race/detail.png';
    await cdn.put(key, first, { contentType: 'image/png', visibility: 'public' });
    const writes = Array.from({ length: 20 }, (_, index) =>
      cdn.put(key, index % 2 ? first : second, { contentType: 'image/png', visibility: 'public' }),
    );
    const reads = Array.from({ length: 40 }, () => cdn.get(key, 'public'));
    await Promise.all(writes);
    for (const read of await Promise.all(reads)) {
      const body = Buffer.from(read!.body);
      assert.ok(body.equals(first) || body.equals(second), `a whole object, not ${body.byteLength} mixed bytes`);
    }
    assert.deepEqual(filesUnder(path.join(root, 'public/race')), ['detail.png'], 'no temporary file left behind');
  });

  it('removes, when listing, the temp file of a write its process never finished once it is stale', async () => {
    await cdn.put('crashed/agen_1/kept.jpg', png, { contentType: 'image/jpeg', visibility: 'private' });
    const directory = path.join(root, 'private/crashed/agen_1');
    // What a process killed between writing and renaming leaves: `<file>.<random>~`.
    writeFileSync(path.join(directory, 'photo.jpg.0123456789ab~'), png);
    writeFileSync(path.join(directory, 'other.jpg.ba9876543210~'), png);
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    utimesSync(path.join(directory, 'photo.jpg.0123456789ab~'), twoHoursAgo, twoHoursAgo);

    const listed: string[] = [];
    for await (const object of cdn.list('crashed/', 'private')) listed.push(object.key);
    assert.deepEqual(listed, ['crashed/agen_1/kept.jpg'], 'temp files are never objects');
    assert.deepEqual(
      filesUnder(directory).sort(),
      ['kept.jpg', 'other.jpg.ba9876543210~'],
      'the stale one is gone; a fresh one may be a write in progress',
    );

    // A write that died as the first in its folder: the folder goes with its temp file, as a delete's would.
    const lone = path.join(root, 'private/crashed/agen_2');
    mkdirSync(lone);
    writeFileSync(path.join(lone, 'photo.jpg.0123456789ab~'), png);
    utimesSync(path.join(lone, 'photo.jpg.0123456789ab~'), twoHoursAgo, twoHoursAgo);
    for await (const _ of cdn.list('crashed/', 'private'));
    assert.ok(!existsSync(lone));
    assert.deepEqual(filesUnder(path.join(root, 'private/crashed')).sort(), [
      'agen_1/kept.jpg',
      'agen_1/other.jpg.ba9876543210~',
    ]);
  });

  it("counts a temp file as stale before the stray-image job lists a dead run's folder", () => {
    // That listing comes once, render.strayImagesAfterMs after the generation ended; a temp file
    // of a run a crash cut short must be stale by then, or nothing would ever remove it.
    const config = loadConfig({});
    const { staleTempMs } = validatedOptions(localPlugin, config) as { staleTempMs: number };
    assert.ok(staleTempMs < config.render.strayImagesAfterMs, `${staleTempMs} ms`);
  });

  it('removes the folders a delete empties, up to its tree, while writes into them race the deletes', async () => {
    await cdn.put('dropped/agen_1/photo.jpg', png, { contentType: 'image/jpeg', visibility: 'private' });
    await cdn.put('shelf/a/one.png', png, { contentType: 'image/png', visibility: 'public' });
    await cdn.put('shelf/a/two.png', png, { contentType: 'image/png', visibility: 'public' });
    await cdn.delete('dropped/agen_1/photo.jpg', 'private');
    assert.ok(!existsSync(path.join(root, 'private/dropped')), 'dropped/agen_1/ and then dropped/ were emptied');
    assert.ok(existsSync(path.join(root, 'private')), 'the tree itself stays');
    await cdn.delete('shelf/a/one.png', 'public');
    assert.deepEqual(filesUnder(path.join(root, 'public/shelf')), ['a/two.png'], 'a folder with something left stays');

    // Each write lands in the folder that deleting its only object, at the same moment, empties and removes.
    const key = (index: number) => `churn/agen_1/photo${index}.png`;
    await cdn.put(key(0), png, { contentType: 'image/png', visibility: 'public' });
    for (let index = 1; index <= 100; index++) {
      await Promise.all([
        cdn.put(key(index), png, { contentType: 'image/png', visibility: 'public' }),
        cdn.delete(key(index - 1), 'public'),
      ]);
    }
    assert.deepEqual(filesUnder(path.join(root, 'public/churn')), ['agen_1/photo100.png']);
    await cdn.delete(key(100), 'public');
    assert.ok(!existsSync(path.join(root, 'public/churn')));
  });

  it('deletes a key whose folder a concurrent delete emptied and removed while it ran', async (t) => {
    await cdn.put('folder-race/agen_1/run/a.png', png, { contentType: 'image/png', visibility: 'public' });
    await cdn.put('folder-race/agen_1/run/b.png', png, { contentType: 'image/png', visibility: 'public' });
    // The other delete finishes (its folder removed) between this delete's unlink and its folder's fsync.
    const unlink = fsPromises.unlink;
    t.mock.method(fsPromises, 'unlink', async (file: string) => {
      await unlink(file);
      if (file.endsWith('a.png')) {
        t.mock.restoreAll();
        syncBuiltinESMExports();
        await cdn.delete('folder-race/agen_1/run/b.png', 'public');
      }
    });
    syncBuiltinESMExports();
    t.after(() => syncBuiltinESMExports());
    await cdn.delete('folder-race/agen_1/run/a.png', 'public');
    assert.ok(!existsSync(path.join(root, 'public/folder-race')), 'the emptied folders are gone');
  });

  it('treats a directory or a path through a file as no object', async () => {
    await cdn.put('dir.d/inner.png', png, { contentType: 'image/png', visibility: 'public' });
    assert.equal(await cdn.get('dir.d', 'public'), null, 'dir.d is a directory');
    assert.equal(await cdn.get('dir.d/inner.png/more.png', 'public'), null, 'inner.png is a file');
    await cdn.delete('dir.d', 'public');
    assert.ok(await cdn.get('dir.d/inner.png', 'public'));
  });

  it('refuses a content type its key contradicts, since the key decides what is served', async () => {
    await assert.rejects(
      cdn.put('gen/a/detail.webp', png, { contentType: 'image/png', visibility: 'public' }),
      /does not fit/,
    );
    await cdn.put('gen/a/detail.webp', png, { contentType: 'IMAGE/WEBP; q=1', visibility: 'public' });
  });

  it('registers as the cdn plugin, under the data dir by default', async () => {
    const dataDir = tempDir('visualizer-data-');
    try {
      for (const [raw, dir] of [
        [{}, 'cdn'],
        [{ dir: 'images' }, 'images'],
      ] as const) {
        // The host fills the data dir and public URL into the plugin's own options.
        const config = loadConfig(
          { VISUALIZER_DATA_DIR: dataDir, VISUALIZER_PUBLIC_URL: 'https://viz.example' },
          { pluginOptions: { 'cdn-local': raw } },
        );
        const { cdn: registered } = await localPlugin.register(
          pluginContext(validatedOptions(localPlugin, config) as never),
        );
        assert.equal(registered.publicUrl('a/b.png'), 'https://viz.example/cdn/a/b.png');
        await registered.put('a/b.png', png, { contentType: 'image/png', visibility: 'public' });
        assert.deepEqual(filesUnder(path.join(dataDir, dir)), ['public/a/b.png']);
      }
      assert.deepEqual(localPlugin.provides, ['cdn']);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('S3 CDN', () => {
  let endpoint: string;
  before(async () => {
    endpoint = await s3Endpoint();
  });

  it('stores objects under the public and private prefixes, public ones cacheable for a year', async () => {
    const cdn = createS3Cdn(s3Options(endpoint));
    assert.equal(cdn.servedByApp, false);
    await cdn.put('layout/p.png', png, { contentType: 'image/png', visibility: 'public' });
    await cdn.put('layout/q.png', png, { contentType: 'image/png', visibility: 'private' });
    const publicObject = await fetch(`${endpoint}/visualizer-test/public/layout/p.png`);
    assert.equal(publicObject.status, 200);
    assert.equal(publicObject.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    await publicObject.arrayBuffer();
    // s3rver lets anyone read anything; on a real bucket only `public/*` is readable anonymously.
    const privateObject = await fetch(`${endpoint}/visualizer-test/private/layout/q.png`);
    assert.equal(privateObject.status, 200);
    assert.equal(privateObject.headers.get('cache-control'), null);
    await privateObject.arrayBuffer();
  });

  it('names the operation, key and status when S3 refuses', async () => {
    const cdn = createS3Cdn(s3Options(endpoint, { accessKeyId: 'NOT-A-KEY' }));
    await assert.rejects(
      cdn.put('gen/a/denied.png', png, { contentType: 'image/png', visibility: 'public' }),
      /^Error: S3 put of public object "gen\/a\/denied\.png" \(s3:\/\/visualizer-test\/public\/gen\/a\/denied\.png\) failed: HTTP 403 InvalidAccessKeyId$/,
    );
    await assert.rejects(
      cdn.get('gen/a/denied.png', 'private'),
      /S3 get of private object "gen\/a\/denied\.png" .* HTTP 403/,
    );
    const missingBucket = createS3Cdn(s3Options(endpoint, { bucket: 'no-such-bucket' }));
    await assert.rejects(
      missingBucket.put('a/b.png', png, { contentType: 'image/png', visibility: 'public' }),
      /S3 put .* HTTP 404 NoSuchBucket/,
    );
  });

  it('sends the headers S3 needs, and public-read only when asked', async () => {
    const seen: Array<{ method?: string; url?: string; headers: IncomingHttpHeaders; bytes: number }> = [];
    const recorder = createServer((request, response) => {
      let bytes = 0;
      request.on('data', (chunk: Buffer) => (bytes += chunk.length));
      request.on('end', () => {
        seen.push({ method: request.method, url: request.url, headers: request.headers, bytes });
        response.writeHead(200, { etag: '"abc"' }).end();
      });
    });
    const base = await listen(recorder);
    try {
      await createS3Cdn(s3Options(base, { publicAcl: true })).put('a/b.webp', png, {
        contentType: 'image/webp',
        visibility: 'public',
      });
      await createS3Cdn(s3Options(base, { publicAcl: true })).put('a/c.webp', png, {
        contentType: 'image/webp',
        visibility: 'private',
      });
      await createS3Cdn(s3Options(base)).put('a/d.webp', png, { contentType: 'image/webp', visibility: 'public' });
      const [withAcl, privateObject, withoutAcl] = seen;
      assert.equal(withAcl?.method, 'PUT');
      assert.equal(withAcl?.url, '/visualizer-test/public/a/b.webp');
      assert.equal(withAcl?.headers['content-type'], 'image/webp');
      assert.equal(withAcl?.headers['x-amz-acl'], 'public-read');
      assert.match(
        String(withAcl?.headers.authorization),
        /^AWS4-HMAC-SHA256 Credential=S3RVER\/\d{8}\/us-east-1\/s3\/aws4_request/,
      );
      assert.match(String(withAcl?.headers['x-amz-content-sha256']), /^[0-9a-f]{64}$/, 'the payload hash is signed');
      assert.equal(withAcl?.bytes, png.byteLength);
      assert.equal(privateObject?.url, '/visualizer-test/private/a/c.webp');
      assert.equal(privateObject?.headers['x-amz-acl'], undefined, 'private objects are never public-read');
      assert.equal(privateObject?.headers['cache-control'], undefined);
      assert.equal(withoutAcl?.headers['x-amz-acl'], undefined, 'no ACL unless asked: buckets use policies');
    } finally {
      await close(recorder);
    }
  });

  it('builds public URLs for path-style, virtual-host and CDN-domain setups', () => {
    const base = { bucket: 'shop-images', region: 'eu-west-1', accessKeyId: 'k', secretAccessKey: 's' };
    assert.equal(
      createS3Cdn(base).publicUrl('gen/a.webp'),
      'https://shop-images.s3.eu-west-1.amazonaws.com/public/gen/a.webp',
    );
    assert.equal(
      createS3Cdn({ ...base, forcePathStyle: true }).publicUrl('gen/a.webp'),
      'https://s3.eu-west-1.amazonaws.com/shop-images/public/gen/a.webp',
    );
    assert.equal(
      createS3Cdn({ ...base, endpoint: 'http://minio:9000/' }).publicUrl('gen/a.webp'),
      'http://minio:9000/shop-images/public/gen/a.webp',
    );
    assert.equal(
      createS3Cdn({ ...base, endpoint: 'https://r2.example', forcePathStyle: false }).publicUrl('gen/a.webp'),
      'https://shop-images.r2.example/public/gen/a.webp',
    );
    assert.equal(
      createS3Cdn({ ...base, publicBaseUrl: 'https://img.shop.example/' }).publicUrl('gen/a.webp'),
      'https://img.shop.example/gen/a.webp',
    );
    assert.equal(
      createS3Cdn({ ...base, publicPrefix: 'pub/v1/' }).publicUrl('gen/a.webp'),
      'https://shop-images.s3.eu-west-1.amazonaws.com/pub/v1/gen/a.webp',
    );
  });

  it('refuses prefixes under which a public key could name a private object', () => {
    const base = { bucket: 'b', region: 'us-east-1', accessKeyId: 'k', secretAccessKey: 's' };
    assert.throws(() => createS3Cdn({ ...base, publicPrefix: '' }), /overlap/);
    assert.throws(() => createS3Cdn({ ...base, publicPrefix: 'x/', privatePrefix: 'x/' }), /overlap/);
    assert.throws(() => createS3Cdn({ ...base, publicPrefix: 'x/', privatePrefix: 'x/private/' }), /overlap/);
    assert.throws(() => createS3Cdn({ ...base, publicPrefix: 'public' }), /must be empty or/);
    assert.throws(() => createS3Cdn({ ...base, privatePrefix: '../' }), /must be empty or/);
    assert.throws(
      () => createS3Cdn({ ...base, privatePrefix: '' }),
      /overlap/,
      'an empty private prefix contains the public one',
    );
    assert.doesNotThrow(() => createS3Cdn({ ...base, publicPrefix: 'pub/', privatePrefix: 'priv/' }));
  });

  it('registers as the cdn plugin, with credentials from the environment', async () => {
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    const restore = (name: string, value: string | undefined) =>
      value === undefined ? delete process.env[name] : (process.env[name] = value);
    try {
      delete process.env.AWS_ACCESS_KEY_ID;
      delete process.env.AWS_SECRET_ACCESS_KEY;
      const options = v.parse(s3Plugin.configSchema!, { bucket: 'visualizer-test', endpoint });
      await assert.rejects(async () => s3Plugin.register(pluginContext(options)), /needs credentials/);
      process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
      process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
      const { cdn } = await s3Plugin.register(pluginContext(options));
      const stored = await cdn.put('plugin/p.png', png, { contentType: 'image/png', visibility: 'public' });
      assert.equal(stored.url, `${endpoint}/visualizer-test/public/plugin/p.png`);
      assert.deepEqual(Buffer.from((await cdn.get('plugin/p.png', 'public'))!.body), Buffer.from(png));
      assert.deepEqual(s3Plugin.provides, ['cdn']);
      assert.equal(v.safeParse(s3Plugin.configSchema!, { bucket: 'b', publicPrefix: 'public' }).success, false);
    } finally {
      restore('AWS_ACCESS_KEY_ID', saved.id);
      restore('AWS_SECRET_ACCESS_KEY', saved.secret);
    }
  });
});
