import type { Metadata } from 'sharp';
import { decodeMemory, maxImageDecodeBytes } from '../imaging/decode-memory.ts';
import { loadSharp } from '../imaging/sharp.ts';
import { OutboundError, type GuardedClient, type OutboundErrorCode } from './guarded-client.ts';

export class ImageFetchError extends Error {
  constructor(
    readonly code: 'image_fetch_failed' | 'invalid_image',
    message: string,
    readonly transient: boolean,
  ) {
    super(message);
    this.name = 'ImageFetchError';
  }
}

export interface FetchedImage {
  bytes: Uint8Array;
  format: 'jpeg' | 'png' | 'webp' | 'gif' | 'avif' | 'tiff';
  width: number;
  height: number;
  /** The header as sharp read it, for planning the decode. */
  metadata: Metadata;
}

const MAX_DIMENSION = 12000;
const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 15000;
const MAX_REDIRECTS = 3;
const SUPPORTED = 'JPEG, PNG, WebP, GIF, AVIF or TIFF';

/**
 * Checks an image's header (from an upload or a fetch): sharp must read it, the format must be one
 * we decode, width/height ≥ 1 and ≤ 12000, and decoding it must fit in `maxImageDecodeBytes`.
 * Otherwise invalid_image. Its pixels are decoded later, by the worker (`prepareInputImage`), so a
 * request never waits for (nor an API process spends its CPU on) decoding a large image.
 */
export async function inspectImage(bytes: Uint8Array): Promise<FetchedImage> {
  if (bytes.byteLength === 0) throw new ImageFetchError('invalid_image', 'The image is empty', false);
  const sharp = await loadSharp();
  let metadata: Metadata;
  try {
    metadata = await sharp(bytes).metadata();
  } catch {
    throw new ImageFetchError('invalid_image', `The file is not a readable image (expected ${SUPPORTED})`, false);
  }
  const format = imageFormat(metadata);
  if (!format) {
    const kind =
      metadata.format === 'heif' && metadata.compression === 'hevc'
        ? 'HEIC images (HEIF with HEVC compression, as iPhones save photos)'
        : `Images in ${metadata.format} format`;
    throw new ImageFetchError('invalid_image', `${kind} are not supported (expected ${SUPPORTED})`, false);
  }
  // Upright dimensions: what the user sees and what rendering works with after EXIF rotation.
  const width = metadata.autoOrient?.width ?? metadata.width;
  const height = metadata.autoOrient?.height ?? metadata.height;
  if (!(width >= 1 && height >= 1)) {
    throw new ImageFetchError('invalid_image', 'The image has no pixels', false);
  }
  if (width > MAX_DIMENSION || height > MAX_DIMENSION) {
    throw new ImageFetchError(
      'invalid_image',
      `The image is ${width}×${height} pixels; width and height may be at most ${MAX_DIMENSION}`,
      false,
    );
  }
  const needed = decodeMemory(metadata);
  if (needed > maxImageDecodeBytes) {
    throw new ImageFetchError(
      'invalid_image',
      `${decodeDescription(metadata, format)} would need ${megabytes(needed)} of memory to decode, more than the ${megabytes(maxImageDecodeBytes)} an image may use. Save it as a baseline JPEG or a non-interlaced PNG, or with fewer pixels`,
      false,
    );
  }
  return { bytes, format, width, height, metadata };
}

const megabytes = (bytes: number) => `${Math.ceil(bytes / (1024 * 1024))} MB`;

/** What makes an image costly to decode, in the words its author would use. */
function decodeDescription(metadata: Metadata, format: FetchedImage['format']): string {
  const kind =
    format === 'png' && metadata.isProgressive
      ? 'An interlaced PNG'
      : format === 'jpeg' && metadata.isProgressive
        ? 'A progressive JPEG'
        : `${format === 'avif' ? 'An' : 'A'} ${format.toUpperCase()} image`;
  const depth = metadata.depth === 'ushort' ? ', 16 bits per sample,' : '';
  return `${kind} of ${metadata.width}×${metadata.height} pixels${depth}`;
}

function imageFormat(metadata: Metadata): FetchedImage['format'] | undefined {
  switch (metadata.format) {
    case 'jpeg':
    case 'png':
    case 'webp':
    case 'gif':
    case 'tiff':
      return metadata.format;
    case 'heif':
      // libvips reads AVIF through its HEIF loader; the codec tells them apart. Its build in sharp
      // has no HEVC decoder (a patent-encumbered codec), so HEIC's header reads but its pixels do not.
      return metadata.compression === 'av1' ? 'avif' : undefined;
    default:
      return undefined;
  }
}

/** GET through the guarded client with maxBytes 10 MB (10 * 1024 * 1024), timeoutMs 15000, maxRedirects 3; then inspectImage. */
export async function fetchImage(
  client: GuardedClient,
  url: string,
  options: { timeoutMs?: number; maxBytes?: number; signal?: AbortSignal } = {},
): Promise<FetchedImage> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  let response;
  try {
    response = await client.request(url, {
      method: 'GET',
      headers: { accept: 'image/avif,image/webp,image/png,image/jpeg,image/*;q=0.8' },
      timeoutMs,
      maxBytes,
      maxRedirects: MAX_REDIRECTS,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (err) {
    if (err instanceof OutboundError) {
      throw new ImageFetchError('image_fetch_failed', outboundMessage(err, { timeoutMs, maxBytes }), err.transient);
    }
    // A caller's abort (or a bug) is not the image host's fault; let it through unchanged.
    throw err;
  }
  const { status } = response;
  if (status < 200 || status > 299) {
    // Rate limits and server errors may pass; other answers (404, 403, 410, an unfollowed 3xx) will not.
    const transient = status === 429 || status >= 500;
    throw new ImageFetchError('image_fetch_failed', `The image URL answered ${status}`, transient);
  }
  return inspectImage(response.body);
}

function outboundMessage(err: OutboundError, limits: { timeoutMs: number; maxBytes: number }): string {
  const messages: Record<OutboundErrorCode, string> = {
    // The client's wording already says whether the URL or a redirect target was at fault.
    invalid_url: `The image URL was refused: ${lowerFirst(err.message)}`,
    not_https: `The image URL was refused: ${lowerFirst(err.message)}`,
    blocked_address: 'The image host resolves to a private address, which is not allowed',
    dns_failed: 'The image host name could not be resolved',
    timeout: `The image host did not deliver the image within ${formatSeconds(limits.timeoutMs)}`,
    too_large: `The image is larger than ${formatBytes(limits.maxBytes)}`,
    too_many_redirects: `The image URL redirected more than ${MAX_REDIRECTS} times`,
    network: err.transient
      ? 'The image host could not be reached'
      : "The image host's TLS certificate could not be verified",
    http_status:
      err.status !== undefined ? `The image URL answered ${err.status}` : 'The image URL answered with an error',
  };
  return messages[err.code];
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} seconds`;
}

function formatBytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  if (mb >= 1 && Number.isInteger(mb)) return `${mb} MB`;
  const kb = bytes / 1024;
  if (kb >= 1 && Number.isInteger(kb)) return `${kb} KB`;
  return `${bytes} bytes`;
}
