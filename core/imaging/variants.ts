import type { Metadata, Sharp } from 'sharp';
import { RenderError } from '../ports/render-engine.ts';
import { decodeMemory, maxImageDecodeBytes, resizeMemory } from './decode-memory.ts';
import type { MemoryBudget } from './memory-budget.ts';
import { loadSharp } from './sharp.ts';
import type { DigitalSourceType } from '../ports/content-credentials.ts';
import { withXmpPacket, xmpPacket } from './xmp.ts';

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
 * Encodes each surface in each format, each its own libvips pipeline over the render's bytes.
 * Never upscales: a variant wider than the render keeps the render's width. `xmp`, when given, is
 * each variant's XMP packet. Not `clone()` of one instance: with bytes as input a clone shares no
 * decode, and sharp copies the input bytes for it on the event loop (structuredClone).
 */
export async function encodeVariants(render: Uint8Array, xmp?: string): Promise<EncodedVariant[]> {
  const sharp = await loadSharp();
  const jobs = (Object.keys(variantWidths) as VariantName[]).flatMap((name) =>
    variantFormats.map(async (format) => {
      const resized = sharp(render, { failOn: 'error' })
        .rotate()
        .resize({ width: variantWidths[name], withoutEnlargement: true });
      const encoder = encoders[format](resized);
      const { data, info } = await (xmp ? encoder.withXmp(xmp) : encoder).toBuffer({ resolveWithObject: true });
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
  const conversion = (keptFormats as readonly string[]).includes(metadata.format)
    ? 0
    : resizeMemory(metadata.width, metadata.height);
  return (
    decodeMemory(metadata) +
    variants * variantWidths.detail * variantWidths.detail * 4 +
    resizeMemory(0, 0) +
    conversion
  );
}

/**
 * The render's original and variants, encoded within the process's image budget, each with XMP
 * stating its digital source type. An engine's image that would need more memory to decode than
 * any input may is refused, not retried. `finishOriginal` (signing it, say) runs on the original
 * while the variants are still being encoded.
 */
export async function encodeRender(
  render: Uint8Array,
  digitalSourceType: DigitalSourceType,
  budget: MemoryBudget,
  signal?: AbortSignal,
  finishOriginal: (original: StorableOriginal) => Promise<StorableOriginal> = async (original) => original,
): Promise<[StorableOriginal, EncodedVariant[]]> {
  const sharp = await loadSharp();
  const metadata = await sharp(render).metadata();
  if (decodeMemory(metadata) > maxImageDecodeBytes) {
    throw new RenderError(
      'render_failed',
      `The engine returned a ${metadata.format} image of ${metadata.width}×${metadata.height} pixels, too large to decode.`,
      false,
    );
  }
  const xmp = xmpPacket(digitalSourceType);
  return budget.reserve(
    encodingMemory(metadata),
    () => Promise.all([storableOriginal(render, metadata, xmp).then(finishOriginal), encodeVariants(render, xmp)]),
    signal,
  );
}

/** Formats a render's original is stored in as the engine made it: every browser and email client shows them. */
const keptFormats = ['jpeg', 'png', 'webp'] as const;
export type OriginalFormat = (typeof keptFormats)[number];
export interface StorableOriginal {
  bytes: Uint8Array;
  format: OriginalFormat;
}

/** The file extension of each format an image is stored in, so a key's extension always fits its type. */
export const fileExtension = { jpeg: 'jpg', png: 'png', webp: 'webp' } as const satisfies Record<
  OriginalFormat | VariantFormat,
  string
>;

/**
 * A render's original as it is stored, by what its bytes are rather than the type the engine
 * named (a third party's engine may name it in another case, or wrongly): the stored key's
 * extension and type must agree, or the store refuses the write. JPEG, PNG and WebP keep the
 * engine's encoded image as it is, with `xmp` as their XMP packet (nothing is decoded or encoded
 * again); anything else (AVIF, GIF, TIFF…) becomes PNG, which loses nothing and keeps the alpha.
 * `metadata` is what sharp read from the render's header.
 */
async function storableOriginal(render: Uint8Array, metadata: Metadata, xmp: string): Promise<StorableOriginal> {
  const { format } = metadata;
  if ((keptFormats as readonly string[]).includes(format)) {
    return {
      bytes: withXmpPacket(render, format as OriginalFormat, xmp, {
        width: metadata.width,
        height: metadata.height,
        hasAlpha: metadata.hasAlpha,
      }),
      format: format as OriginalFormat,
    };
  }
  const sharp = await loadSharp();
  // Upright, as the variants are: the PNG keeps no EXIF orientation to apply later.
  return { bytes: await sharp(render, { failOn: 'error' }).rotate().png().withXmp(xmp).toBuffer(), format: 'png' };
}
