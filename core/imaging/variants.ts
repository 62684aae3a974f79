import type { Metadata, Sharp } from 'sharp';
import { RenderError } from '../ports/render-engine.ts';
import { decodeMemory, maxImageDecodeBytes, resizeMemory } from './decode-memory.ts';
import type { MemoryBudget } from './memory-budget.ts';
import { loadSharp } from './sharp.ts';

/**
 * The variant surfaces and their maximum widths (spec: list 200, card 600, detail 1200), which
 * the API reports as `imageVariants.*.width`; a narrower render's variant keeps the render's width.
 */
export const variantWidths = { list: 200, card: 600, detail: 1200 } as const;
export type VariantName = keyof typeof variantWidths;
export const variantFormats = ['jpeg', 'webp'] as const;
export type VariantFormat = (typeof variantFormats)[number];

export interface EncodedVariant {
  name: VariantName;
  format: VariantFormat;
  width: number;
  height: number;
  bytes: Buffer;
}

/**
 * Encoder settings shared with the benchmark's floor, so both do the same work. JPEG has no
 * alpha: a render with transparent areas is laid on white, as a page shows it, where dropping the
 * alpha would show black (sharp flattens only images that have alpha, so opaque ones cost nothing).
 */
export const encoders: Record<VariantFormat, (image: Sharp) => Sharp> = {
  jpeg: (image) => image.flatten({ background: '#ffffff' }).jpeg({ quality: 82, progressive: true }),
  webp: (image) => image.webp({ quality: 80 }),
};

/**
 * Decodes the render once and encodes each surface in each format from clones of that one
 * decode. Never upscales: a variant wider than the render keeps the render's width.
 */
export async function encodeVariants(render: Uint8Array): Promise<EncodedVariant[]> {
  const sharp = await loadSharp();
  const base = sharp(render, { failOn: 'error' }).rotate();
  const jobs = (Object.keys(variantWidths) as VariantName[]).flatMap((name) =>
    variantFormats.map(async (format) => {
      const resized = base.clone().resize({ width: variantWidths[name], withoutEnlargement: true });
      const { data, info } = await encoders[format](resized).toBuffer({ resolveWithObject: true });
      return { name, format, width: info.width, height: info.height, bytes: data };
    }),
  );
  return Promise.all(jobs);
}

/**
 * Memory that encoding a render holds at most (storableOriginal and encodeVariants at once): one
 * decode of it, the six variants' pipelines, and for a format converted to PNG, that encode.
 */
function encodingMemory(metadata: Metadata): number {
  const variants = (Object.keys(variantWidths) as VariantName[]).length * variantFormats.length;
  const conversion = (keptFormats as readonly string[]).includes(metadata.format) ? 0 : resizeMemory(metadata.width, metadata.height);
  return decodeMemory(metadata) + variants * variantWidths.detail * variantWidths.detail * 4 + resizeMemory(0, 0) + conversion;
}

/**
 * The render's original and variants, encoded within the process's image budget. An engine's
 * image that would need more memory to decode than any input may is refused, not retried.
 */
export async function encodeRender(render: Uint8Array, budget: MemoryBudget, signal?: AbortSignal) {
  const sharp = await loadSharp();
  const metadata = await sharp(render).metadata();
  if (decodeMemory(metadata) > maxImageDecodeBytes) {
    throw new RenderError('render_failed', `The engine returned a ${metadata.format} image of ${metadata.width}×${metadata.height} pixels, too large to decode.`, false);
  }
  return budget.reserve(encodingMemory(metadata), () => Promise.all([storableOriginal(render, metadata.format), encodeVariants(render)]), signal);
}

/** Formats a render's original is stored in as the engine made it: every browser and email client shows them. */
const keptFormats = ['jpeg', 'png', 'webp'] as const;
export type OriginalFormat = (typeof keptFormats)[number];

/**
 * A render's original as it is stored, by what its bytes are rather than the type the engine
 * named (a third party's engine may name it in another case, or wrongly): the stored key's
 * extension and type must agree, or the store refuses the write. JPEG, PNG and WebP are kept byte
 * for byte; anything else (AVIF, GIF, TIFF…) becomes PNG, which loses nothing and keeps the alpha.
 * `format` is what sharp read from the render's header.
 */
async function storableOriginal(render: Uint8Array, format: string): Promise<{ bytes: Uint8Array; format: OriginalFormat }> {
  if ((keptFormats as readonly string[]).includes(format)) return { bytes: render, format: format as OriginalFormat };
  const sharp = await loadSharp();
  // Upright, as the variants are: the PNG keeps no EXIF orientation to apply later.
  return { bytes: await sharp(render, { failOn: 'error' }).rotate().png().toBuffer(), format: 'png' };
}
