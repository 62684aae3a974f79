import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import {
  RenderError,
  type ImageSize,
  type Mode,
  type RenderEngine,
  type RenderErrorCode,
  type RenderProduct,
  type RenderRequest,
} from '../plugin.ts';
import { withinHangBound } from './wait-for.ts';

/**
 * A failure of a remote engine's vendor, as the suite asks a fake of that vendor to answer:
 * - `rate_limited`: 429 with `Retry-After: 7`, as the vendor sends it;
 * - `unavailable`: 503 (or the vendor's documented overload answer);
 * - `timeout`: no answer at all (the request hangs): the suite renders once with the engine's own
 *   timeout short (`createWithTimeout`) and no signal, and once with its signal aborted after a second;
 * - `moderation`: the vendor's documented moderation or safety refusal;
 * - `malformed`: a 200 whose body is not the vendor's documented shape (not JSON at all).
 */
export type RenderFault = 'rate_limited' | 'unavailable' | 'timeout' | 'moderation' | 'malformed';

/** How an adapter must classify each fault (see `renderErrorCodes`). */
export const faultClassification: Record<RenderFault, { code: RenderErrorCode; transient: boolean }> = {
  rate_limited: { code: 'renderer_unavailable', transient: true },
  unavailable: { code: 'renderer_unavailable', transient: true },
  timeout: { code: 'render_timeout', transient: true },
  moderation: { code: 'content_blocked', transient: false },
  malformed: { code: 'renderer_unavailable', transient: true },
};

export interface RenderEngineContractOptions<Engine extends RenderEngine = RenderEngine> {
  name: string;
  /** The engine under test. */
  create(): Engine | Promise<Engine>;
  /** Stops whatever `create` started (a fake of a remote API, say); called once after the suite. */
  dispose?(engine: Engine): void | Promise<void>;
  /**
   * For an engine with a remote: from this call on, every request the engine makes to its remote
   * is answered with `fault` (null: answered normally again). Given, the suite checks that the
   * adapter classifies each fault as `faultClassification` says; an engine with no remote (the
   * mock) has no faults to inject and leaves it out.
   */
  injectFault?(fault: RenderFault | null, engine: Engine): void | Promise<void>;
  /**
   * With `injectFault`: an engine like `create`'s, on the same remote, whose own timeout (the
   * adapter's option for a vendor that never answers) is `timeoutMs`. The `timeout` fault renders
   * through it with no signal, so only the adapter's own timeout can end the render, and checks
   * that it ends as `render_timeout`. Required with `injectFault`: the case fails without it.
   */
  createWithTimeout?(timeoutMs: number): Engine | Promise<Engine>;
}

/** The adapter's own timeout in the `timeout` fault case: short, so the case is quick. */
const OWN_TIMEOUT_MS = 500;
/** How long the `timeout` fault case waits for an engine to give up by itself before failing it as hung. */
const HANG_BOUND_MS = 30_000;

const LONG_SIDE: Record<ImageSize, number> = { '1K': 1024, '2K': 2048, '4K': 4096 };

/** A 1200×1600 JPEG with a diagonal gradient: a portrait photo with no flat areas. */
export async function gradientPhoto(width = 1200, height = 1600): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const offset = (y * width + x) * 3;
      pixels[offset] = 40;
      pixels[offset + 1] = Math.round((y / height) * 200) + 30;
      pixels[offset + 2] = Math.round((x / width) * 200) + 30;
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
}

/** A 400×400 PNG product shot: a red item with a yellow mark on its own light background. */
export async function productImage(color = '#ff0000'): Promise<Buffer> {
  const mark = await sharp({ create: { width: 80, height: 80, channels: 3, background: '#ffd800' } })
    .png()
    .toBuffer();
  return sharp({ create: { width: 400, height: 400, channels: 3, background: color } })
    .composite([{ input: mark, left: 160, top: 160 }])
    .png()
    .toBuffer();
}

export function product(image: Uint8Array, overrides: Partial<RenderProduct> = {}): RenderProduct {
  return { productId: 'sku-1', productTitle: 'Red linen shirt', image, dimensions: null, ...overrides };
}

/**
 * A JPEG with two damaged bytes halfway through its data: libjpeg warns ("corrupt JPEG data") and
 * decodes it anyway, and browsers show it, so the core's intake accepts it. Tagged EXIF orientation
 * 6 (stored 1000×800, seen as an 800×1000 portrait), so an engine that turns it upright decodes it too.
 */
export async function damagedJpeg(): Promise<Buffer> {
  const [width, height] = [1000, 800];
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) {
    const x = i % width;
    const y = Math.floor(i / width);
    pixels[i * 3] = (x * 7 + y * 3) & 255;
    pixels[i * 3 + 1] = (y * 5) & 255;
    pixels[i * 3 + 2] = (x * 2) & 255;
  }
  const bytes = Buffer.from(
    await sharp(pixels, { raw: { width, height, channels: 3 } })
      .withMetadata({ orientation: 6 })
      .jpeg({ quality: 90 })
      .toBuffer(),
  );
  const at = Math.floor(bytes.length / 2);
  // A stray restart marker (FF D3) in the middle of the scan: "premature end of data segment".
  bytes[at] = 0xff;
  bytes[at + 1] = 0xd3;
  return bytes;
}

/** The RenderError `promise` rejects with; fails the test when it resolves or rejects with anything else. */
export async function rejectsWithRenderError(promise: Promise<unknown>): Promise<RenderError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof RenderError, `expected a RenderError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the render to be rejected');
}

/**
 * The render engine contract. Every adapter (the mock, Gemini against a fake of its API, or a
 * third party's) runs this same suite: outputs decode, have the long side that was paid for and
 * the photo's shape; aborts and bad inputs end in a RenderError.
 */
export function renderEngineContract<Engine extends RenderEngine>(options: RenderEngineContractOptions<Engine>) {
  describe(`render engine contract: ${options.name}`, () => {
    let engine: Engine;
    let photo: Buffer;
    let products: RenderProduct[];
    const request = (overrides: Partial<RenderRequest> = {}): RenderRequest => ({
      mode: firstMode(),
      imageSize: firstSize(),
      photo,
      products,
      hint: null,
      ...overrides,
    });

    before(async () => {
      engine = await options.create();
      photo = await gradientPhoto();
      const image = await productImage();
      products = [product(image)];
    });
    after(async () => {
      if (engine) await options.dispose?.(engine);
    });

    it('has a name', () => {
      assert.equal(typeof engine.name, 'string');
      assert.ok(engine.name.length > 0);
    });

    const allModes: Mode[] = ['virtual-try-on', 'room-visualizer'];
    const allSizes: ImageSize[] = ['1K', '2K', '4K'];
    // What the engine declares it renders; the core never asks it for anything else.
    const modes = () => allModes.filter((mode) => !engine.supports?.modes || engine.supports.modes.includes(mode));
    const sizes = () => allSizes.filter((size) => !engine.supports?.sizes || engine.supports.sizes.includes(size));
    const firstMode = () => modes()[0]!;
    const firstSize = () => sizes()[0]!;

    it('supports at least one mode and one size, of those the service has', () => {
      assert.ok(modes().length > 0, `supports.modes names none of ${allModes.join(', ')}`);
      assert.ok(sizes().length > 0, `supports.sizes names none of ${allSizes.join(', ')}`);
    });

    it(`renders every mode and size it supports: the long side paid for (${allSizes.map((size) => LONG_SIDE[size]).join(', ')}), the photo's aspect ratio`, async () => {
      for (const mode of modes()) {
        for (const imageSize of sizes()) {
          const roomProducts = [
            product(products[0]!.image, {
              productTitle: 'Sofa',
              dimensions: { width: 200, height: 90, depth: 95, unit: 'cm' },
            }),
          ];
          const result = await engine.render(
            request({ mode, imageSize, products: mode === 'room-visualizer' ? roomProducts : products }),
          );
          const metadata = await sharp(result.image).metadata();
          assert.equal(
            result.contentType,
            `image/${metadata.format}`,
            `${mode} ${imageSize}: contentType names the format of the bytes`,
          );
          assert.equal(Math.max(metadata.width, metadata.height), LONG_SIDE[imageSize], `${mode} ${imageSize}`);
          const ratio = metadata.width / metadata.height;
          assert.ok(
            Math.abs(ratio / (1200 / 1600) - 1) <= 0.02,
            `${mode} ${imageSize}: aspect ratio ${ratio} is within 2% of the photo's 0.75`,
          );
        }
      }
    });

    it('takes up to three products', async () => {
      const colors = ['#ff0000', '#00a000', '#0000ff'];
      const three = await Promise.all(
        colors.map(async (color, index) =>
          product(await productImage(color), { productId: index, productTitle: `Item ${index}` }),
        ),
      );
      const result = await engine.render(request({ products: three }));
      const metadata = await sharp(result.image).metadata();
      assert.equal(Math.max(metadata.width, metadata.height), LONG_SIDE[firstSize()]);
    });

    it("honours the photo's EXIF orientation", async () => {
      // Stored 1600×1200 but tagged "rotate 90°": the customer sees a 1200×1600 portrait.
      const sideways = await sharp(await gradientPhoto(1600, 1200))
        .withMetadata({ orientation: 6 })
        .jpeg()
        .toBuffer();
      const result = await engine.render(request({ photo: sideways }));
      const metadata = await sharp(result.image).metadata();
      assert.ok(metadata.height > metadata.width, `expected a portrait, got ${metadata.width}×${metadata.height}`);
      assert.equal(metadata.height, LONG_SIDE[firstSize()]);
    });

    it('renders a photo with damaged data that still decodes, as browsers show it', async () => {
      // What the intake check accepts (only a truncated file fails), every engine must read.
      const result = await engine.render(request({ photo: await damagedJpeg() }));
      const metadata = await sharp(result.image).metadata();
      assert.ok(
        metadata.height > metadata.width,
        `expected the photo upright, a portrait; got ${metadata.width}×${metadata.height}`,
      );
      assert.equal(metadata.height, LONG_SIDE[firstSize()]);
    });

    it('renders a photo far wider or taller than any usual shape', async () => {
      for (const [width, height] of [
        [1200, 60],
        [30, 2000],
      ] as const) {
        const strip = await sharp({ create: { width, height, channels: 3, background: '#8a9' } })
          .png()
          .toBuffer();
        for (const mode of modes()) {
          const result = await engine.render(request({ mode, photo: strip }));
          const metadata = await sharp(result.image).metadata();
          assert.equal(
            Math.max(metadata.width, metadata.height),
            LONG_SIDE[firstSize()],
            `${mode}, ${width}×${height}`,
          );
        }
      }
    });

    it('rejects with a RenderError when the signal is already aborted', async () => {
      const error = await rejectsWithRenderError(engine.render(request({ signal: AbortSignal.abort() })));
      assert.equal(error.code, 'render_timeout', 'an abort has one code');
      assert.ok(error.message.length > 0);
    });

    it('rejects with a RenderError when the signal aborts during the render', async () => {
      const controller = new AbortController();
      const pending = engine.render(request({ imageSize: sizes().at(-1)!, signal: controller.signal }));
      controller.abort();
      const error = await rejectsWithRenderError(pending);
      assert.equal(error.code, 'render_timeout', 'an abort has one code');
    });

    it('rejects photo bytes that are not an image, as a final failure', async () => {
      const error = await rejectsWithRenderError(
        engine.render(request({ photo: new TextEncoder().encode('not an image at all') })),
      );
      assert.equal(error.transient, false);
    });

    it('rejects product bytes that are not an image, as a final failure', async () => {
      const broken = [product(new Uint8Array([0xff, 0xd8, 0x00, 0x01, 0x02]))];
      const error = await rejectsWithRenderError(engine.render(request({ products: broken })));
      assert.equal(error.transient, false);
    });

    if (options.injectFault) {
      const inject = options.injectFault;
      describe("classifies its vendor's failures as the vocabulary says", () => {
        after(() => inject(null, engine));
        for (const [fault, expected] of Object.entries(faultClassification) as Array<
          [RenderFault, (typeof faultClassification)[RenderFault]]
        >) {
          it(`${fault}: ${expected.code}, ${expected.transient ? 'transient' : 'final'}`, async () => {
            await inject(fault, engine);
            try {
              // A vendor that never answers: the render must end when its signal aborts (the service's
              // timeout), whatever the engine's own timeout is, so the case holds on a busy machine too.
              const signal = fault === 'timeout' ? AbortSignal.timeout(1_000) : undefined;
              const error = await rejectsWithRenderError(engine.render(request({ signal })));
              assert.equal(error.code, expected.code, error.message);
              assert.equal(error.transient, expected.transient, error.message);
              if (fault === 'rate_limited')
                assert.equal(error.retryAfterMs, 7_000, 'Retry-After: 7 is passed on as retryAfterMs');
            } finally {
              await inject(null, engine);
            }
          });
        }
        it(`timeout, by the engine's own timeout (no signal): ${faultClassification.timeout.code}, transient`, async () => {
          assert.ok(
            options.createWithTimeout,
            'createWithTimeout is required with injectFault: the suite checks how the adapter classifies its own timeout',
          );
          const shortEngine = await options.createWithTimeout(OWN_TIMEOUT_MS);
          await inject('timeout', engine);
          try {
            // No signal: only the adapter's own timeout can end this render. The bound only fails a hang.
            const rendered = withinHangBound(
              shortEngine.render(request()),
              HANG_BOUND_MS,
              `the engine, its own timeout set to ${OWN_TIMEOUT_MS} ms, was still waiting for its vendor after ${HANG_BOUND_MS} ms`,
            );
            const error = await rejectsWithRenderError(rendered);
            assert.equal(error.code, faultClassification.timeout.code, error.message);
            assert.equal(error.transient, true, error.message);
          } finally {
            await inject(null, engine);
          }
        });
        it('renders again once its vendor answers normally', async () => {
          const result = await engine.render(request());
          assert.ok(result.image.byteLength > 0);
        });
      });
    }
  });
}
