import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import type { ImageCdn } from '../plugin.ts';

export interface ImageCdnContractOptions<Cdn extends ImageCdn = ImageCdn> {
  name: string;
  /**
   * Makes the adapter under test. `publicUrl` is the base URL of a loopback HTTP server the suite
   * runs in place of the app: it serves `/cdn/<key>` from `get(key, 'public')`, as the app does for
   * an adapter whose `servedByApp` is true. Such an adapter takes it as its public base URL.
   */
  create(context: { publicUrl: string }): Cdn | Promise<Cdn>;
  /** Removes what the suite stored; called once after the suite. */
  dispose?(cdn: Cdn): void | Promise<void>;
  /**
   * Fetches a public URL as a browser would. Defaults to `fetch`; an adapter whose URLs the test
   * cannot reach directly (a CDN domain, say) routes them here to where they are really served.
   */
  fetchPublic?(url: string): Promise<Response>;
}

/** Stands in for the app's `/cdn/` route: `get(key, 'public')` and nothing else, with the headers the app sends. */
async function startAppStandIn(cdn: () => ImageCdn | undefined): Promise<{ url: string; server: Server }> {
  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const key = url.pathname.startsWith('/cdn/') ? url.pathname.slice('/cdn/'.length) : null;
    // The adapter itself refuses unsafe keys (which its contract checks): a refusal here is a 404.
    const object =
      request.method === 'GET' && key ? await (async () => cdn()?.get(key, 'public'))().catch(() => null) : null;
    if (!object) return response.writeHead(404).end();
    response
      .writeHead(200, {
        'content-type': object.contentType,
        etag: object.etag,
        'content-length': object.body.byteLength,
      })
      .end(object.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** Keys the core never makes and every adapter must refuse, whatever it stores under. */
export const unsafeKeys = [
  '../x.png',
  '/abs.png',
  'a//b.png',
  'a/./b.png',
  'noext',
  'a/b.png?x',
  '%2e%2e/x.png',
  'a/../../b.png',
  'a/b.png/',
  'a\\..\\b.png',
  '',
];

const collect = async <T>(items: AsyncIterable<T>) => {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
};

const contentTypeFor = (name: string) =>
  ({ jpg: 'image/jpeg', png: 'image/png', webp: 'image/webp' })[name.split('.').pop() as 'jpg' | 'png' | 'webp'];

/** Real images, so an adapter that re-encodes, truncates or mangles bytes is caught. */
async function makeImages() {
  const noise = (seed: number) => {
    const pixels = Buffer.alloc(64 * 48 * 3);
    for (let index = 0; index < pixels.length; index += 1)
      pixels[index] = (index * 31 + seed * 97 + ((index * seed) >> 3)) & 0xff;
    return sharp(pixels, { raw: { width: 64, height: 48, channels: 3 } });
  };
  return {
    png: new Uint8Array(await noise(1).png().toBuffer()),
    otherPng: new Uint8Array(await noise(2).png().toBuffer()),
    webp: new Uint8Array(await noise(3).webp({ lossless: true }).toBuffer()),
    jpeg: new Uint8Array(await noise(4).jpeg().toBuffer()),
  };
}

/**
 * The Image CDN contract. Every adapter (local disk, S3, or a third party's) runs this same suite
 * against a real store of its kind, with public URLs fetched over real HTTP.
 */
export function imageCdnContract<Cdn extends ImageCdn>(options: ImageCdnContractOptions<Cdn>) {
  describe(`image CDN contract: ${options.name}`, () => {
    let cdn: Cdn;
    let standIn: Server | undefined;
    let images: Awaited<ReturnType<typeof makeImages>>;
    // A fresh namespace per run, so suites can share a bucket or directory without seeing each other.
    const run = `contract-${randomBytes(6).toString('hex')}`;
    const key = (name: string) => `${run}/${name}`;
    const fetchPublic = (url: string) => (options.fetchPublic ? options.fetchPublic(url) : fetch(url));

    before(async () => {
      images = await makeImages();
      const app = await startAppStandIn(() => cdn);
      standIn = app.server;
      cdn = await options.create({ publicUrl: app.url });
    });
    after(async () => {
      if (standIn) await new Promise((resolve) => standIn!.close(resolve));
      if (cdn) await options.dispose?.(cdn);
    });

    it('stores a public image and returns it byte for byte, with its type and a stable strong ETag', async () => {
      const name = key('gen/agen_1/detail.png');
      const stored = await cdn.put(name, images.png, { contentType: 'image/png', visibility: 'public' });
      assert.deepEqual(
        { key: stored.key, contentType: stored.contentType, size: stored.size },
        { key: name, contentType: 'image/png', size: images.png.byteLength },
      );
      const fetched = await cdn.get(name, 'public');
      assert.ok(fetched, 'the object is there');
      assert.deepEqual(Buffer.from(fetched.body), Buffer.from(images.png));
      assert.equal(fetched.contentType, 'image/png');
      assert.match(fetched.etag, /^"[^"]+"$/, 'a strong validator, quoted');
      assert.equal((await cdn.get(name, 'public'))?.etag, fetched.etag, 'the same bytes keep the same ETag');
    });

    it('stores a private image that only the private side returns', async () => {
      const name = key('uploads/abc/photo.webp');
      const stored = await cdn.put(name, images.webp, { contentType: 'image/webp', visibility: 'private' });
      assert.deepEqual(stored, { key: name, contentType: 'image/webp', size: images.webp.byteLength, url: null });
      const fetched = await cdn.get(name, 'private');
      assert.ok(fetched);
      assert.deepEqual(Buffer.from(fetched.body), Buffer.from(images.webp));
      assert.equal(fetched.contentType, 'image/webp');
      assert.match(fetched.etag, /^"[^"]+"$/);
      assert.equal(await cdn.get(name, 'public'), null, 'a private object is not public');
    });

    it('keeps a public object out of the private side', async () => {
      const name = key('gen/agen_2/thumb.jpg');
      await cdn.put(name, images.jpeg, { contentType: 'image/jpeg', visibility: 'public' });
      assert.equal(await cdn.get(name, 'private'), null);
      assert.equal((await cdn.get(name, 'public'))?.contentType, 'image/jpeg');
    });

    it('keeps the two visibilities of one key apart', async () => {
      const name = key('both/same.png');
      await cdn.put(name, images.png, { contentType: 'image/png', visibility: 'public' });
      await cdn.put(name, images.otherPng, { contentType: 'image/png', visibility: 'private' });
      assert.deepEqual(Buffer.from((await cdn.get(name, 'public'))!.body), Buffer.from(images.png));
      assert.deepEqual(Buffer.from((await cdn.get(name, 'private'))!.body), Buffer.from(images.otherPng));
      await cdn.delete(name, 'private');
      assert.equal(await cdn.get(name, 'private'), null);
      assert.ok(await cdn.get(name, 'public'), 'deleting the private object leaves the public one');
    });

    it('gives a public object a permanent absolute URL that serves its bytes over HTTP', async () => {
      const name = key('gen/agen_3/k7Qp/detail.png');
      const expected = cdn.publicUrl(name);
      const stored = await cdn.put(name, images.png, { contentType: 'image/png', visibility: 'public' });
      assert.equal(stored.url, expected, 'the URL is known before the object exists and does not change');
      assert.equal(cdn.publicUrl(name), expected);
      const url = new URL(stored.url!);
      assert.match(url.protocol, /^https?:$/);
      assert.ok(url.pathname.endsWith(`/${name}`), 'the key is visible in the URL');
      const response = await fetchPublic(stored.url!);
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^image\/png/);
      assert.deepEqual(Buffer.from(await response.arrayBuffer()), Buffer.from(images.png));
    });

    it('never serves a private object through any public URL', async () => {
      const name = key('uploads/def/photo.png');
      const stored = await cdn.put(name, images.png, { contentType: 'image/png', visibility: 'private' });
      assert.equal(stored.url, null);
      const response = await fetchPublic(cdn.publicUrl(name));
      await response.arrayBuffer();
      assert.ok([403, 404].includes(response.status), `the would-be public URL answers ${response.status}`);
    });

    it('overwrites a key: the last write wins, and rewriting the same bytes is harmless', async () => {
      const name = key('gen/agen_4/detail.png');
      await cdn.put(name, images.png, { contentType: 'image/png', visibility: 'public' });
      const first = await cdn.get(name, 'public');
      await cdn.put(name, images.png, { contentType: 'image/png', visibility: 'public' });
      assert.equal((await cdn.get(name, 'public'))?.etag, first?.etag, 'the same bytes again: the same object');
      const stored = await cdn.put(name, images.otherPng, { contentType: 'image/png', visibility: 'public' });
      assert.equal(stored.size, images.otherPng.byteLength);
      const second = await cdn.get(name, 'public');
      assert.deepEqual(Buffer.from(second!.body), Buffer.from(images.otherPng));
      assert.notEqual(second!.etag, first!.etag, 'new bytes, new ETag');
      const response = await fetchPublic(stored.url!);
      assert.deepEqual(Buffer.from(await response.arrayBuffer()), Buffer.from(images.otherPng));
    });

    it('deletes objects, and deleting a missing one succeeds', async () => {
      const name = key('gen/agen_6/detail.webp');
      const stored = await cdn.put(name, images.webp, { contentType: 'image/webp', visibility: 'public' });
      await cdn.delete(name, 'public');
      assert.equal(await cdn.get(name, 'public'), null);
      const response = await fetchPublic(stored.url!);
      await response.arrayBuffer();
      assert.ok([403, 404].includes(response.status), `a deleted object's URL answers ${response.status}`);
      await cdn.delete(name, 'public');
      await cdn.delete(key('never/was.png'), 'private');
    });

    it('deletes every key of a folder at once, as sweeps do, each delete succeeding', async () => {
      const names = Array.from({ length: 12 }, (_, index) => key(`gen/agen_7/run/${index}.png`));
      await Promise.all(
        names.map((name) => cdn.put(name, images.png, { contentType: 'image/png', visibility: 'public' })),
      );
      for (let round = 0; round < 3; round++) {
        await Promise.all(names.map((name) => cdn.delete(name, 'public')));
        assert.deepEqual(await collect(cdn.list(key('gen/agen_7/'), 'public')), []);
        await Promise.all(
          names.map((name) => cdn.put(name, images.png, { contentType: 'image/png', visibility: 'public' })),
        );
      }
      await Promise.all(names.map((name) => cdn.delete(name, 'public')));
    });

    it('returns null for a key that was never written', async () => {
      assert.equal(await cdn.get(key('missing/nothing.png'), 'public'), null);
      assert.equal(await cdn.get(key('missing/nothing.png'), 'private'), null);
    });

    it('lists the keys under a prefix, one visibility at a time, with when each was written', async () => {
      const before = Date.now();
      const names = ['list/uploads/agen_1/a.jpg', 'list/uploads/agen_2/b.png', 'list/uploads/agen_2/c.webp'].map(key);
      for (const name of names)
        await cdn.put(name, images.png, { contentType: contentTypeFor(name), visibility: 'private' });
      await cdn.put(key('list/uploads/agen_3/public.png'), images.png, {
        contentType: 'image/png',
        visibility: 'public',
      });
      await cdn.put(key('list/other/d.png'), images.png, { contentType: 'image/png', visibility: 'private' });
      const listed = await collect(cdn.list(key('list/uploads/'), 'private'));
      assert.deepEqual(listed.map((object) => object.key).sort(), names);
      for (const object of listed) {
        // Stores keep whole seconds (S3's LastModified), so allow for the rounding.
        assert.ok(
          object.modifiedAt >= before - 1_000 && object.modifiedAt <= Date.now() + 1_000,
          `${object.key} written at ${object.modifiedAt}`,
        );
      }
      assert.deepEqual(
        (await collect(cdn.list(key('list/uploads/'), 'public'))).map((object) => object.key),
        [key('list/uploads/agen_3/public.png')],
      );
      assert.deepEqual(await collect(cdn.list(key('list/nothing-here/'), 'private')), []);

      await cdn.delete(names[0]!, 'private');
      assert.deepEqual(
        (await collect(cdn.list(key('list/uploads/'), 'private'))).map((object) => object.key).sort(),
        names.slice(1),
      );
    });

    it('refuses a listing prefix that is not whole key segments', async () => {
      for (const bad of ['../', 'a', '/a/', 'a//', '%2e%2e/', 'a/../']) {
        await assert.rejects(async () => collect(cdn.list(bad, 'private')), Error, `list ${JSON.stringify(bad)}`);
      }
    });

    it('refuses keys that could escape its root or that the core never makes', async () => {
      // Function form, so an adapter may refuse by throwing at once or by rejecting.
      for (const bad of unsafeKeys) {
        const shown = JSON.stringify(bad);
        await assert.rejects(
          async () => cdn.put(bad, images.png, { contentType: 'image/png', visibility: 'public' }),
          Error,
          `put ${shown}`,
        );
        await assert.rejects(
          async () => cdn.put(bad, images.png, { contentType: 'image/png', visibility: 'private' }),
          Error,
          `put private ${shown}`,
        );
        await assert.rejects(async () => cdn.get(bad, 'public'), Error, `get ${shown}`);
        await assert.rejects(async () => cdn.get(bad, 'private'), Error, `get private ${shown}`);
        await assert.rejects(async () => cdn.delete(bad, 'public'), Error, `delete ${shown}`);
        assert.throws(() => cdn.publicUrl(bad), Error, `publicUrl ${shown}`);
      }
    });
  });
}
