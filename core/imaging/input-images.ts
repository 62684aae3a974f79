import type { Metadata } from 'sharp';
import { inputDecoding } from './input-decoding.ts';
import { decodeMemory, resizeMemory } from './decode-memory.ts';
import type { MemoryBudget } from './memory-budget.ts';
import { loadSharp } from './sharp.ts';

/** What the header of an accepted input image says: enough to plan its decode. */
export interface InputImage {
  bytes: Uint8Array;
  metadata: Metadata;
}

/**
 * Whether the bytes can go to a render engine as they are: a format every engine reads, streamed
 * by libvips (so the engine's own decode stays small), upright and no larger than needed.
 */
function usableAsIs({ metadata }: InputImage, longSide: number): boolean {
  // Upright, as the image shows after its EXIF orientation.
  const { width, height } = metadata.autoOrient;
  if (Math.max(width, height) > longSide || (metadata.orientation ?? 1) > 1) return false;
  if (metadata.format === 'webp') return true;
  return (metadata.format === 'jpeg' || metadata.format === 'png') && !metadata.isProgressive;
}

/** The size an image is scaled to so that its long side is at most `longSide`, never up. */
function fittedSize(metadata: Metadata, longSide: number) {
  const { width, height } = metadata.autoOrient;
  const scale = Math.min(1, longSide / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/** Memory that preparing the image holds at most, reserved from the process's budget before it starts. */
export function preparationMemory(image: InputImage, longSide: number): number {
  const fitted = fittedSize(image.metadata, longSide);
  return decodeMemory(image.metadata) + resizeMemory(fitted.width, fitted.height);
}

/**
 * An input image as render engines receive it: every pixel decoded (a damaged or truncated file
 * throws libvips's error), and unless usable as it is, upright, scaled to fit `longSide` and
 * re-encoded in a format that streams (JPEG, or PNG to keep transparency). So however an image
 * was sent, an engine's own decode of it needs memory for `longSide` pixels, not for the original.
 */
export async function prepareInputImage(
  image: InputImage,
  longSide: number,
  budget: MemoryBudget,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  return budget.reserve(
    preparationMemory(image, longSide),
    async () => {
      const sharp = await loadSharp();
      if (usableAsIs(image, longSide)) {
        // Small output keeps the check cheap: these formats shrink while decoding or stream their rows.
        await sharp(image.bytes, inputDecoding).resize(64, 64, { fit: 'inside' }).raw().toBuffer();
        return image.bytes;
      }
      const resized = sharp(image.bytes, { ...inputDecoding, sequentialRead: true })
        .rotate()
        .resize(longSide, longSide, { fit: 'inside', withoutEnlargement: true });
      const encoded = image.metadata.hasAlpha ? resized.png({ compressionLevel: 3 }) : resized.jpeg({ quality: 92 });
      return new Uint8Array(await encoded.toBuffer());
    },
    signal,
  );
}
