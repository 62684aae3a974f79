/**
 * The variant pipeline as a render stores it (`credentialedRender`: list/card/detail in JPEG and
 * WebP, each with XMP; then Content Credentials signed on the original and the six variants, in
 * the signing thread) against its floor: a bare sharp script doing the same six resizes and
 * encodes with the same encoder settings, one pipeline per output as ours, without the EXIF turn. Both run their six outputs concurrently, in the same process, alternating
 * iteration by iteration. `encodeVariants` alone (no XMP, no signatures) runs in the same turns,
 * so the difference is what Content Credentials cost a render; the main thread's longest stall
 * while signing is reported too (the signing thread's work must not block it).
 *
 *   node --import tsx bench/variants.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import sharp from 'sharp';
import * as v from 'valibot';
import { createMemoryBudget } from '../core/imaging/memory-budget.ts';
import { encodeVariants, encoders, variantFormats, variantWidths } from '../core/imaging/variants.ts';
import { silentLogger } from '../core/logger.ts';
import { credentialedRender } from '../core/services/credentialed-render.ts';
import c2pa from '../plugins/credentials-c2pa/index.ts';
import { createMockRenderer } from '../plugins/renderer-mock/index.ts';
import { photoLikeJpeg } from './support/images.ts';
import { fixed, median, runBenchmark, sized, summaryRow, table, type SummaryRow } from './support/report.ts';

// Smoke mode renders 1K only: a 4K round proves nothing more about whether the pipeline runs, and
// takes most of the minute a loaded CI host has.
const renders = [
  { label: '1K', width: 1024, height: 1365, iterations: sized(40, 2) },
  ...sized([{ label: '4K', width: 4096, height: 5461, iterations: 10 }], []),
];
const warmups = sized(3, 0);
const target = 1.2;

async function bare(render: Buffer) {
  return Promise.all(
    Object.values(variantWidths).flatMap((width) =>
      variantFormats.map(async (format) => {
        const { data, info } = await encoders[format](
          sharp(render).resize({ width, withoutEnlargement: true }),
        ).toBuffer({ resolveWithObject: true });
        return { width: info.width, bytes: data };
      }),
    ),
  );
}

// The development certificate of a throwaway data directory, as `serve` makes on a new one.
const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-variants-'));
const plugin = await c2pa.register({
  options: v.parse(c2pa.configSchema!, { developmentCertificateDir: dataDir }),
  logger: silentLogger,
  outbound: undefined as never,
  port: () => {
    throw new Error('no port');
  },
});
const credentials = plugin.credentials!;
const budget = createMemoryBudget(4 * 1024 ** 3);
const engine = createMockRenderer();

async function ours(render: Buffer) {
  const { original, variants } = await credentialedRender(render, {
    credentials,
    engine,
    generationId: 'gen_bench',
    budget,
  });
  return [{ bytes: Buffer.from(original.bytes) }, ...variants];
}

async function plain(render: Buffer) {
  return encodeVariants(render);
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

async function main(): Promise<SummaryRow[]> {
  console.log(
    `variants: credentialedRender (and encodeVariants alone) vs bare sharp (decode per output), sharp ${sharp.versions.sharp} / libvips ${sharp.versions.vips}, libvips threads ${sharp.concurrency()}, UV_THREADPOOL_SIZE ${process.env.UV_THREADPOOL_SIZE ?? '4 (default)'}`,
  );
  const rows: Array<Array<string | number>> = [];
  const summary: SummaryRow[] = [];
  const credentialCosts: string[] = [];
  for (const spec of renders) {
    const render = await photoLikeJpeg(spec.width, spec.height);
    const [ourOutputs, bareOutputs, plainOutputs] = [await ours(render), await bare(render), await plain(render)];
    const bytes = (outputs: Array<{ bytes: Buffer }>) =>
      outputs.reduce((total, output) => total + output.bytes.length, 0);
    for (let i = 0; i < warmups; i++) {
      await ours(render);
      await bare(render);
      await plain(render);
    }
    const ourTimes: number[] = [];
    const bareTimes: number[] = [];
    const plainTimes: number[] = [];
    let longestStall = 0;
    const timeOurs = async () => {
      // A histogram per render: one enabled again counts the time it was off as one long delay.
      const stalls = monitorEventLoopDelay({ resolution: 1 });
      stalls.enable();
      ourTimes.push(await time(() => ours(render)));
      stalls.disable();
      longestStall = Math.max(longestStall, stalls.max);
    };
    // Alternating, with the order flipped every other iteration, so drift (thermal, GC, other tenants) hits all alike.
    for (let i = 0; i < spec.iterations; i++) {
      if (i % 2 === 0) {
        await timeOurs();
        bareTimes.push(await time(() => bare(render)));
        plainTimes.push(await time(() => plain(render)));
      } else {
        plainTimes.push(await time(() => plain(render)));
        bareTimes.push(await time(() => bare(render)));
        await timeOurs();
      }
    }
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    const ratio = median(ourTimes) / median(bareTimes);
    const name = `${spec.label} ${spec.width}×${spec.height} (${Math.round(render.length / 1024)} KB)`;
    rows.push(
      [
        name,
        'credentialedRender',
        spec.iterations,
        fixed(median(ourTimes)),
        fixed(mean(ourTimes)),
        fixed(Math.min(...ourTimes)),
        Math.round(bytes(ourOutputs) / 1024),
        fixed(ratio, 2),
      ],
      [
        name,
        'encodeVariants alone',
        spec.iterations,
        fixed(median(plainTimes)),
        fixed(mean(plainTimes)),
        fixed(Math.min(...plainTimes)),
        Math.round(bytes(plainOutputs) / 1024),
        fixed(median(plainTimes) / median(bareTimes), 2),
      ],
      [
        name,
        'bare sharp',
        spec.iterations,
        fixed(median(bareTimes)),
        fixed(mean(bareTimes)),
        fixed(Math.min(...bareTimes)),
        Math.round(bytes(bareOutputs) / 1024),
        '',
      ],
    );
    credentialCosts.push(
      `${spec.label}: ${fixed(median(ourTimes) - median(plainTimes))} ms per render (median ${fixed(median(ourTimes))} vs ${fixed(median(plainTimes))} ms); main thread's longest stall while signing ${fixed(longestStall / 1e6)} ms`,
    );
    summary.push(
      summaryRow(
        `variants ${spec.label} (ms/op, ours/bare)`,
        `${fixed(median(ourTimes))} ms`,
        `${fixed(median(bareTimes))} ms`,
        ratio,
        { atMost: target },
      ),
    );
  }
  console.log(
    table(
      [
        'render',
        'pipeline',
        'n',
        'median ms/op',
        'mean ms/op',
        'min ms',
        'out KB',
        `ratio ours/bare (target <= ${target})`,
      ],
      rows,
    ),
  );
  console.log(
    'ratio = median ms/op / median ms/op of the bare script; out KB = the outputs together (credentialedRender: the original too).',
  );
  console.log(
    `Content Credentials (XMP and seven signatures) cost, credentialedRender less encodeVariants alone: ${credentialCosts.join('; ')}`,
  );
  return summary;
}

runBenchmark(
  () =>
    main().finally(async () => {
      await plugin.dispose?.();
      rmSync(dataDir, { recursive: true, force: true });
    }),
  { boundSeconds: sized(420, 60) },
);
