/**
 * The variant pipeline (`encodeVariants`: decode once, clone per output, list/card/detail in JPEG
 * and WebP) against its floor: a bare sharp script doing the same six resizes and encodes with the
 * same encoder settings, decoding the render afresh for each output (no clone). Both run their six
 * outputs concurrently, in the same process, alternating iteration by iteration.
 *
 *   node --import tsx bench/variants.ts
 */
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { encodeVariants, encoders, variantFormats, variantWidths } from '../core/imaging/variants.ts';
import { photoLikeJpeg } from './support/images.ts';
import { fixed, median, runBenchmark, sized, summaryRow, table, type SummaryRow } from './support/report.ts';

const renders = [
  { label: '1K', width: 1024, height: 1365, iterations: sized(40, 2) },
  { label: '4K', width: 4096, height: 5461, iterations: sized(10, 1) },
];
const warmups = sized(3, 1);
const target = 1.2;

async function bare(render: Buffer) {
  return Promise.all(
    Object.values(variantWidths).flatMap((width) =>
      variantFormats.map(async (format) => {
        const { data, info } = await encoders[format](sharp(render).resize({ width, withoutEnlargement: true })).toBuffer({ resolveWithObject: true });
        return { width: info.width, bytes: data };
      }),
    ),
  );
}

async function ours(render: Buffer) {
  return encodeVariants(render);
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

async function main(): Promise<SummaryRow[]> {
  console.log(`variants: encodeVariants vs bare sharp (decode per output), sharp ${sharp.versions.sharp} / libvips ${sharp.versions.vips}, libvips threads ${sharp.concurrency()}, UV_THREADPOOL_SIZE ${process.env.UV_THREADPOOL_SIZE ?? '4 (default)'}`);
  const rows: Array<Array<string | number>> = [];
  const summary: SummaryRow[] = [];
  for (const spec of renders) {
    const render = await photoLikeJpeg(spec.width, spec.height);
    const [ourOutputs, bareOutputs] = [await ours(render), await bare(render)];
    const bytes = (outputs: Array<{ bytes: Buffer }>) => outputs.reduce((total, output) => total + output.bytes.length, 0);
    for (let i = 0; i < warmups; i++) {
      await ours(render);
      await bare(render);
    }
    const ourTimes: number[] = [];
    const bareTimes: number[] = [];
    // Alternating, with the order flipped every other iteration, so drift (thermal, GC, other tenants) hits both alike.
    for (let i = 0; i < spec.iterations; i++) {
      if (i % 2 === 0) {
        ourTimes.push(await time(() => ours(render)));
        bareTimes.push(await time(() => bare(render)));
      } else {
        bareTimes.push(await time(() => bare(render)));
        ourTimes.push(await time(() => ours(render)));
      }
    }
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    const ratio = median(ourTimes) / median(bareTimes);
    const name = `${spec.label} ${spec.width}×${spec.height} (${Math.round(render.length / 1024)} KB)`;
    rows.push(
      [name, 'encodeVariants', spec.iterations, fixed(median(ourTimes)), fixed(mean(ourTimes)), fixed(Math.min(...ourTimes)), Math.round(bytes(ourOutputs) / 1024), fixed(ratio, 2)],
      [name, 'bare sharp', spec.iterations, fixed(median(bareTimes)), fixed(mean(bareTimes)), fixed(Math.min(...bareTimes)), Math.round(bytes(bareOutputs) / 1024), ''],
    );
    summary.push(summaryRow(`variants ${spec.label} (ms/op, ours/bare)`, `${fixed(median(ourTimes))} ms`, `${fixed(median(bareTimes))} ms`, ratio, { atMost: target }));
  }
  console.log(table(['render', 'pipeline', 'n', 'median ms/op', 'mean ms/op', 'min ms', 'out KB', `ratio ours/bare (target <= ${target})`], rows));
  console.log('ratio = median ms/op of encodeVariants / median ms/op of the bare script; out KB = all six outputs together.');
  return summary;
}

runBenchmark(main, { boundSeconds: sized(300, 60) });
