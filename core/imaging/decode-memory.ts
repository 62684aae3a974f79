import type { Metadata } from 'sharp';

const MiB = 1024 * 1024;

/**
 * The most memory one input image's decode may need (`decodeMemory`): above it an image is refused
 * as `invalid_image` rather than decoded. A 48-megapixel progressive JPEG fits; a small file that
 * decodes to gigabytes does not.
 */
export const maxImageDecodeBytes = 256 * MiB;

const bytesPerSample: Record<string, number> = {
  uchar: 1,
  char: 1,
  ushort: 2,
  short: 2,
  uint: 4,
  int: 4,
  float: 4,
  double: 8,
  complex: 8,
  dpcomplex: 16,
};

/** JPEG components per pixel after chroma subsampling (4:2:0 keeps a quarter of each chroma plane). */
function jpegComponents(metadata: Metadata): number {
  switch (metadata.chromaSubsampling) {
    case '4:2:0':
      return 1.5;
    case '4:2:2':
      return 2;
    default:
      return metadata.channels;
  }
}

/**
 * Bytes that decoding the image holds at once, read from its header alone. Formats libvips streams
 * (baseline JPEG, non-interlaced PNG, WebP) hold rows: up to about 2,000 of them while a large image
 * shrinks. The others hold the whole picture (interlaced PNG, GIF, TIFF, whose strips may span it,
 * AVIF), or, for a progressive JPEG, the coefficients of every block until the last scan. GIF's and
 * AVIF's figures are measured: their decoders keep more than one copy.
 */
export function decodeMemory(metadata: Metadata): number {
  const pixels = metadata.width * metadata.height;
  const samples = metadata.channels * (bytesPerSample[metadata.depth ?? 'uchar'] ?? 1);
  return metadata.width * samples * 2048 + wholeImageMemory(metadata, pixels, samples);
}

function wholeImageMemory(metadata: Metadata, pixels: number, samples: number): number {
  switch (metadata.format) {
    case 'jpeg':
      return metadata.isProgressive ? pixels * jpegComponents(metadata) * 2 : 0;
    case 'png':
      return metadata.isProgressive ? pixels * samples : 0;
    case 'gif':
      return pixels * 4.5;
    case 'tiff':
      return pixels * samples;
    case 'heif':
      return pixels * 18;
    default:
      return 0;
  }
}

/**
 * What a decode, resize and encode whose output is `width`×`height` holds besides the decode's own
 * buffers: libvips's tiles and threads, the resized pixels and the encoder's buffers, measured at
 * about three times the output's RGBA pixels, plus what any pipeline holds.
 */
export function resizeMemory(width: number, height: number): number {
  return width * height * 4 * 3 + 24 * MiB;
}
