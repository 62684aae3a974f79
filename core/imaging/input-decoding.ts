import sharp, { type SharpOptions } from 'sharp';

/**
 * How every decode of a photo or product image reads it, the intake check's and the renderers'
 * alike, so that what the check accepts a renderer can read: a truncated file fails, while damaged
 * data that browsers still show (libjpeg's "corrupt JPEG data" warnings) does not.
 */
export const inputDecoding = { failOn: 'truncated' } as const satisfies SharpOptions;

/**
 * Decodes every pixel, or throws libvips's error. Small output keeps it cheap: JPEG and WebP
 * shrink while decoding, and libvips streams the rest, so even a 12000 px image needs little memory.
 */
export async function decodeAllPixels(bytes: Uint8Array): Promise<void> {
  await sharp(bytes, inputDecoding).resize(64, 64, { fit: 'inside' }).raw().toBuffer();
}
