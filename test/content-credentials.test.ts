import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { asValue } from 'awilix';
import sharp from 'sharp';
import { startWorkers } from '../core/lifecycle.ts';
import { digitalSourceTypeUri, type DigitalSourceType } from '../core/ports/content-credentials.ts';
import type { RenderEngine } from '../core/ports/render-engine.ts';
import { manifestActions, readContentCredentials, withOneImageByteChanged } from '../kit/testing/index.ts';
import { databaseMatrix } from './support/databases.ts';
import { exiftoolXmp } from './support/exiftool.ts';
import { startGenerationApp, type GenerationApp } from './support/generation-app.ts';
import { startS3rver } from './support/s3-server.ts';

/**
 * Every image a render stores (the original, and list, card and detail in JPEG and WebP) carries
 * Content Credentials and XMP that say how the engine made it, read back by readers independent of
 * the ones that wrote them: c2pa-wasm's Reader and exiftool (required: a missing one fails). Run on
 * SQLite with local disk, and on Postgres with S3 (s3rver), the images read back from the bucket.
 */
const matrix = databaseMatrix();
after(() => matrix.stop());
const postgresEnvironment = new Map(matrix.databases).get('postgres')!;

for (const storage of ['SQLite, local disk', 'Postgres, S3 on s3rver'] as const) {
  describe(`content credentials on every stored image (${storage})`, () => {
    let g: GenerationApp;
    let key: string;
    let s3: Awaited<ReturnType<typeof startS3rver>> | undefined;
    /** Set per test: what the stub engine is, and answers. */
    let engine: Pick<RenderEngine, 'name' | 'provenance'> & { image: Buffer } = {
      name: 'unset',
      image: Buffer.alloc(0),
    };

    before(async () => {
      if (storage === 'SQLite, local disk') g = await startGenerationApp({ workers: false });
      else {
        const bucket = 'credentials';
        s3 = await startS3rver(bucket);
        g = await startGenerationApp({
          workers: false,
          env: await postgresEnvironment(),
          config: {
            plugins: { cdn: 's3' },
            pluginOptions: {
              'cdn-s3': { bucket, endpoint: s3.endpoint, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
            },
          },
        });
      }
      const stub: RenderEngine = {
        get name() {
          return engine.name;
        },
        get provenance() {
          return engine.provenance;
        },
        async render() {
          return { image: engine.image, contentType: 'image/png' };
        },
      };
      g.app.container.register({ renderer: asValue(stub) });
      await startWorkers(g.app.container.cradle);
      key = (await g.app.tenants.createOrganization({ name: 'Acme', credits: 100 })).apiKey.key;
    });
    after(async () => {
      await g?.close();
      await s3?.close();
    });

    /** The generation's stored images, by file name, as the CDN serves them. */
    async function renderAndFetch() {
      const { id } = await (await g.api.post(key, g.validBody())).json();
      const done = await g.api.settled(key, id, 30_000);
      assert.equal(done.status, 'complete', JSON.stringify(done.error));
      const urls = new Map<string, string>([[done.imageUrl.split('/').at(-1)!, done.imageUrl]]);
      for (const name of ['list', 'card', 'detail']) {
        const jpeg: string = done.imageVariants[name].url;
        urls.set(`${name}.jpg`, jpeg);
        urls.set(`${name}.webp`, jpeg.replace(/\.jpg$/, '.webp'));
      }
      const images = new Map<string, { bytes: Buffer; type: string }>();
      for (const [file, url] of urls) {
        // On S3 the public URLs are s3rver's own: the bytes come back from the bucket.
        if (s3) assert.ok(url.startsWith(`${s3.endpoint}/`), url);
        const response = await fetch(url);
        assert.equal(response.status, 200, url);
        images.set(file, {
          bytes: Buffer.from(await response.arrayBuffer()),
          type: response.headers.get('content-type')!,
        });
      }
      return { id: id as string, images };
    }

    async function assertCredentials(
      images: Map<string, { bytes: Buffer; type: string }>,
      expected: {
        id: string;
        engine: string;
        type: DigitalSourceType;
        action: 'c2pa.created' | 'c2pa.edited';
        original: string;
      },
    ) {
      assert.equal(images.size, 7, 'the original and six variants');
      for (const [file, { bytes, type }] of images) {
        const xmp = await exiftoolXmp(bytes);
        assert.equal(
          xmp.DigitalSourceType,
          digitalSourceTypeUri(expected.type),
          `${file}'s XMP: ${JSON.stringify(xmp)}`,
        );

        const read = await readContentCredentials(bytes, type);
        assert.equal(read.state, 'Valid', `${file}: ${read.failures.join(', ')}`);
        // The development certificate's CA is trusted by no one; every other check passes.
        assert.deepEqual(read.failures, ['signingCredential.untrusted'], file);
        assert.deepEqual(
          read.ingredientFailures.filter((code) => code !== 'signingCredential.untrusted'),
          [],
          file,
        );
        assert.ok(read.success.includes('assertion.dataHash.match'), `${file}: the hash binds the image`);
        assert.equal(read.manifest.claim_generator_info[0]?.name, 'Visualizer');
        assert.equal(read.manifest.title, file);
        const actions = manifestActions(read.manifest);
        const stating = file === expected.original ? actions.at(-1)! : actions[0]!;
        assert.equal(stating.digitalSourceType, digitalSourceTypeUri(expected.type), file);
        assert.equal(stating.parameters?.generationId, expected.id, file);
        assert.equal(stating.parameters?.engine, expected.engine, file);
        if (file === expected.original) {
          assert.deepEqual(
            actions.map((action) => action.action),
            expected.action === 'c2pa.created' ? ['c2pa.created'] : ['c2pa.opened', 'c2pa.edited'],
          );
          assert.equal(stating.softwareAgent?.name, expected.engine);
        } else {
          assert.deepEqual(
            actions.map((action) => action.action),
            ['c2pa.opened', 'c2pa.resized'],
            file,
          );
          const [parent] = read.manifest.ingredients ?? [];
          assert.equal(parent?.title, expected.original, `${file} names the original`);
          assert.equal(parent?.relationship, 'parentOf');
        }

        const format = type.slice('image/'.length) as 'jpeg' | 'png' | 'webp';
        const tampered = await readContentCredentials(withOneImageByteChanged(bytes, format), type);
        assert.equal(tampered.state, 'Invalid', `${file} with one changed byte`);
        assert.ok(tampered.failures.includes('assertion.dataHash.mismatch'), file);
      }
    }

    it("the mock's: an edit of the shopper's photo into a composite with synthetic elements", async () => {
      const { createMockRenderer } = await import('../plugins/renderer-mock/index.ts');
      const mock = createMockRenderer();
      const photo = await sharp({ create: { width: 800, height: 1000, channels: 3, background: '#88aacc' } })
        .jpeg()
        .toBuffer();
      const product = await sharp({ create: { width: 300, height: 300, channels: 3, background: '#aa3311' } })
        .png()
        .toBuffer();
      const rendered = await mock.render({
        mode: 'virtual-try-on',
        imageSize: '1K',
        photo,
        products: [{ productId: 1, productTitle: 'Shirt', image: product, dimensions: null }],
        hint: null,
      });
      engine = { name: mock.name, provenance: mock.provenance, image: Buffer.from(rendered.image) };
      const { id, images } = await renderAndFetch();
      assert.ok(images.has('original.jpg'));
      await assertCredentials(images, {
        id,
        engine: 'mock',
        type: 'compositeSynthetic',
        action: 'c2pa.edited',
        original: 'original.jpg',
      });
      // The original is the engine's image, pixel for pixel, with metadata added.
      const [engineMade, stored] = await Promise.all([
        sharp(rendered.image).raw().toBuffer(),
        sharp(images.get('original.jpg')!.bytes).raw().toBuffer(),
      ]);
      assert.ok(engineMade.equals(stored));
    });

    it("Gemini's: a new image generated by a trained model, kept in the PNG it answered", async () => {
      const { createGeminiRenderer } = await import('../plugins/renderer-gemini/index.ts');
      const gemini = createGeminiRenderer({ apiKey: 'not-used' });
      const image = await sharp({
        create: { width: 1024, height: 768, channels: 4, background: { r: 200, g: 120, b: 40, alpha: 0.8 } },
      })
        .png()
        .toBuffer();
      engine = { name: gemini.name, provenance: gemini.provenance, image };
      const { id, images } = await renderAndFetch();
      await assertCredentials(images, {
        id,
        engine: 'gemini',
        type: 'trainedAlgorithmicMedia',
        action: 'c2pa.created',
        original: 'original.png',
      });
    });

    it('an engine that declares nothing: taken for a trained model, in a WebP original', async () => {
      const image = await sharp({ create: { width: 900, height: 600, channels: 3, background: '#357' } })
        .webp()
        .toBuffer();
      engine = { name: 'third-party', image };
      const { id, images } = await renderAndFetch();
      await assertCredentials(images, {
        id,
        engine: 'third-party',
        type: 'trainedAlgorithmicMedia',
        action: 'c2pa.created',
        original: 'original.webp',
      });
    });
  });
}
