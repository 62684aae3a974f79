/**
 * Checks the image memory estimates against libvips: for images of each format that are costly to
 * decode, prepares each as a render's input (prepareInputImage) in a process of its own and
 * prints the peak RSS growth (/proc VmHWM) beside the estimate the budget reserves. A ratio above
 * 1 would be an estimate too low. `node --import tsx bench/tools/decode-memory.ts`
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp, { type Sharp } from 'sharp';
import { prepareInputImage, preparationMemory } from '../../core/imaging/input-images.ts';
import { createMemoryBudget } from '../../core/imaging/memory-budget.ts';

const MiB = 1024 * 1024;
const side = 12000;
const cases: Record<string, (image: Sharp) => Sharp> = {
  'baseline JPEG': (image) => image.jpeg(),
  'progressive JPEG': (image) => image.jpeg({ progressive: true }),
  PNG: (image) => image.png(),
  'interlaced PNG': (image) => image.png({ progressive: true }),
  'interlaced 16-bit PNG': (image) => image.toColourspace('rgb16').png({ progressive: true }),
  WebP: (image) => image.webp(),
  'lossless WebP': (image) => image.webp({ lossless: true }),
  GIF: (image) => image.gif(),
  TIFF: (image) => image.tiff({ compression: 'deflate' }),
  'AVIF (8000 px)': (image) => image.resize(8000).avif({ effort: 0 }),
};

function peakBytes(): number {
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;
}

async function measure(file: string, longSide: number) {
  const bytes = new Uint8Array(readFileSync(file));
  const image = { bytes, metadata: await sharp(bytes).metadata() };
  const before = Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;
  await prepareInputImage(image, longSide, createMemoryBudget(64 * 1024 * MiB));
  console.log(JSON.stringify({ measured: peakBytes() - before, estimate: preparationMemory(image, longSide) }));
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'decode-memory-'));
  try {
    console.log('format                   long side   measured MB   estimate MB   measured/estimate');
    for (const [name, encode] of Object.entries(cases)) {
      const file = path.join(dir, 'image');
      writeFileSync(
        file,
        await encode(sharp({ create: { width: side, height: side, channels: 3, background: '#88aacc' } })).toBuffer(),
      );
      for (const longSide of [1024, 4096]) {
        // A process per measurement, so no earlier decode's peak counts.
        const out = execFileSync(process.execPath, ['--import', 'tsx', import.meta.filename, file, String(longSide)], {
          encoding: 'utf8',
        });
        const { measured, estimate } = JSON.parse(out) as { measured: number; estimate: number };
        console.log(
          `${name.padEnd(24)} ${String(longSide).padStart(9)} ${(measured / MiB).toFixed(0).padStart(13)} ${(estimate / MiB).toFixed(0).padStart(13)} ${(measured / estimate).toFixed(2).padStart(19)}`,
        );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.length > 2) await measure(process.argv[2]!, Number(process.argv[3]));
else await main();
