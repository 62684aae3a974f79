/**
 * Where a 1K render's time goes outside the latency benchmark's floor (the mock render and the
 * variants): each step a worker takes for the benchmark's generation, timed alone, one at a time,
 * as the median of 15 runs after 3 unmeasured ones. What lies between the floor and a generation's
 * createdAt → completedAt is these steps, the queue's wake-up, the transaction and the cores the
 * concurrent renders share.
 *
 *   node --import tsx bench/tools/render-steps.ts
 */
import { performance } from 'node:perf_hooks';
import { prepareInputImage } from '../../core/imaging/input-images.ts';
import { encodeRender, encodeVariants } from '../../core/imaging/variants.ts';
import { credentialedRender } from '../../core/services/credentialed-render.ts';
import { fetchImage } from '../../core/outbound/fetch-image.ts';
import { startBenchApp } from '../support/app.ts';
import { median, table } from '../support/report.ts';

const runs = 15;
const warmups = 3;
/** A 1K render's inputs are prepared to this long side (render-generation.ts `longSideOf`). */
const longSide = 1024;

const bench = await startBenchApp();
try {
  const { outbound, renderer, imageMemory, cdn, credentials } = bench.app.container.cradle;
  const rows: Array<[string, string]> = [];
  async function step(label: string, work: () => Promise<unknown>) {
    for (let i = 0; i < warmups; i++) await work();
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      await work();
      times.push(performance.now() - started);
    }
    rows.push([label, median(times).toFixed(1)]);
  }

  const photoUrl = `${bench.host.url}/photo.jpg`;
  const productUrl = `${bench.host.url}/products/sku-1042.png`;
  const photo = await fetchImage(outbound, photoUrl, {});
  const product = await fetchImage(outbound, productUrl, {});
  const preparedPhoto = await prepareInputImage(photo, longSide, imageMemory);
  const preparedProduct = await prepareInputImage(product, longSide, imageMemory);
  const request = (photoBytes: Uint8Array, productBytes: Uint8Array) => ({
    mode: 'virtual-try-on' as const,
    imageSize: '1K' as const,
    photo: photoBytes,
    products: [{ productId: 'sku-1042', productTitle: 'Linen overshirt, rust', image: productBytes, dimensions: null }],
    hint: null,
  });
  const render = (await renderer.render(request(preparedPhoto, preparedProduct))).image;
  const { original, variants } = await credentialedRender(render, {
    credentials,
    engine: renderer,
    generationId: 'gen_steps',
    budget: imageMemory,
  });

  await step('fetch the photo (HTTPS, loopback)', () => fetchImage(outbound, photoUrl, {}));
  await step('fetch the product image', () => fetchImage(outbound, productUrl, {}));
  await step('prepare the photo (decode, fit 1024, encode)', () => prepareInputImage(photo, longSide, imageMemory));
  await step('prepare the product image (check)', () => prepareInputImage(product, longSide, imageMemory));
  await step('floor: mock render', () => renderer.render(request(bench.photo, bench.product)));
  await step('floor: encodeVariants', () => encodeVariants(render));
  await step('encodeRender (original + variants, with XMP)', () =>
    encodeRender(render, 'compositeSynthetic', imageMemory),
  );
  await step('credentialedRender (encodeRender, then 7 signatures)', () =>
    credentialedRender(render, { credentials, engine: renderer, generationId: 'gen_steps', budget: imageMemory }),
  );
  let folder = 0;
  await step('store the original and 6 variants (local CDN)', async () => {
    const base = `gen/steps/${folder++}`;
    await cdn.put(`${base}/original.${original.format === 'jpeg' ? 'jpg' : original.format}`, original.bytes, {
      contentType: `image/${original.format}`,
      visibility: 'public',
    });
    await Promise.all(
      variants.map((variant) =>
        cdn.put(`${base}/${variant.name}.${variant.format === 'jpeg' ? 'jpg' : variant.format}`, variant.bytes, {
          contentType: `image/${variant.format}`,
          visibility: 'public',
        }),
      ),
    );
  });
  console.log(
    `render steps, 1K, median of ${runs} runs each, one at a time (fetches and preparations run two at once in a render)`,
  );
  console.log(table(['step', 'ms'], rows));
} finally {
  await bench.close();
}
