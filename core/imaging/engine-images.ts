import { longSideOf, type ImageSize } from '../domain/generation.ts';
import { RenderError, type RenderResult } from '../ports/render-engine.ts';
import { inputDecoding } from './input-decoding.ts';
import { loadSharp } from './sharp.ts';

/**
 * What render engines do to images on their way to a vendor and back, so that an engine needs no
 * image library of its own (and the process loads one copy of libvips).
 */

const mimeTypes: Partial<Record<string, VendorImage['mimeType']>> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
};

/** An image as vendors take it: JPEG, PNG or WebP, upright, with its size as seen. */
export interface VendorImage {
  bytes: Buffer;
  mimeType: 'image/jpeg' | 'image/png' | 'image/webp';
  width: number;
  height: number;
}

/**
 * An input image (the photo or a product's) ready to send: JPEG, PNG and WebP as they are unless
 * their EXIF orientation turns them (vendors are not known to read the tag), so the pixels are
 * turned upright; any other format becomes PNG. `label` names the image in the error: bytes that
 * do not decode fail as `render_failed`, final.
 */
export async function vendorImage(bytes: Uint8Array, label: string): Promise<VendorImage> {
  const sharp = await loadSharp();
  try {
    const metadata = await sharp(bytes).metadata();
    const mimeType = mimeTypes[metadata.format];
    let out = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (!mimeType || (metadata.orientation ?? 1) > 1) {
      const upright = sharp(bytes, inputDecoding).rotate();
      const encoded =
        mimeType === 'image/jpeg'
          ? upright.jpeg({ quality: 95 })
          : mimeType === 'image/webp'
            ? upright.webp({ quality: 95 })
            : upright.png();
      out = await encoded.toBuffer();
    }
    return {
      bytes: out,
      mimeType: mimeType ?? 'image/png',
      width: metadata.autoOrient.width,
      height: metadata.autoOrient.height,
    };
  } catch (error) {
    throw new RenderError('render_failed', `The ${label} could not be decoded: ${(error as Error).message}`, false);
  }
}

/**
 * A vendor's image as the port returns it: its long side scaled to the size paid for (vendors'
 * sizes are pixel budgets or presets, not long sides), upright, in its own format when that is
 * JPEG, PNG or WebP (PNG otherwise). Bytes that do not decode fail as `renderer_unavailable`: the
 * vendor answered with something that is not the image it documents. `vendor` names it in the error.
 */
export async function fitToSize(bytes: Uint8Array, imageSize: ImageSize, vendor: string): Promise<RenderResult> {
  const target = longSideOf[imageSize];
  const sharp = await loadSharp();
  try {
    const metadata = await sharp(bytes).metadata();
    const mimeType = mimeTypes[metadata.format];
    const { width, height } = metadata.autoOrient;
    if (mimeType && Math.max(width, height) === target && (metadata.orientation ?? 1) <= 1)
      return { image: bytes, contentType: mimeType };
    const resized = sharp(bytes).rotate().resize(target, target, { fit: 'inside' });
    const encoded =
      mimeType === 'image/jpeg'
        ? resized.jpeg({ quality: 90 })
        : mimeType === 'image/webp'
          ? resized.webp({ quality: 90 })
          : resized.png();
    return { image: await encoded.toBuffer(), contentType: mimeType ?? 'image/png' };
  } catch (error) {
    throw new RenderError(
      'renderer_unavailable',
      `${vendor} returned an image that could not be decoded: ${(error as Error).message}`,
      true,
    );
  }
}
