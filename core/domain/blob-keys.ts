/**
 * Rules for the keys the core stores blobs under (`gen/agen_…/…/detail.webp`, `uploads/…/photo.jpg`).
 * Every Image CDN adapter checks keys with these rules, so a key that one adapter accepts is
 * accepted by all of them, and none can name anything outside the adapter's root.
 */

import { createHash } from 'node:crypto';

export const MAX_KEY_LENGTH = 512;

/** Where uploaded photos are kept (private): `uploads/<generation id>/<random>.<ext>`. */
export const uploadPrefix = 'uploads/';

/** Where a generation's rendered images are kept (public): `gen/<id>/<random per run>/<name>.<ext>`. */
export const generationImagesPrefix = (generationId: string) => `gen/${generationId}/`;

export const allowedKeyCharacters = /^[A-Za-z0-9/_.-]+$/;
// A name before the final dot, so `a/.png` (a hidden file, not an image) is not a key.
const endsInExtension = /[^/.]\.[A-Za-z0-9]+$/;

/** Why `key` is not a safe blob key, or null when it is. */
export function keyProblem(key: string): string | null {
  if (typeof key !== 'string' || key.length === 0) return 'is empty';
  if (key.length > MAX_KEY_LENGTH) return `is longer than ${MAX_KEY_LENGTH} characters`;
  // Checked before anything else, so `%2e%2e`, `?`, `\` and NUL never reach a file system or URL.
  if (!allowedKeyCharacters.test(key)) return 'may only contain A-Z, a-z, 0-9, "/", "_", "." and "-"';
  if (key.startsWith('/')) return 'must not start with "/"';
  for (const segment of key.split('/')) {
    if (segment === '') return 'must not contain an empty segment ("//" or a trailing "/")';
    if (segment === '.' || segment === '..') return `must not contain a "${segment}" segment`;
  }
  if (!endsInExtension.test(key)) return 'must end in a file extension such as ".webp"';
  return null;
}

export function isSafeKey(key: string): boolean {
  return keyProblem(key) === null;
}

/** Throws unless `key` is safe; keys are made by the core, so a bad one is a bug, not user input. */
export function assertSafeKey(key: string): void {
  const problem = keyProblem(key);
  if (problem === null) return;
  const shown = typeof key === 'string' ? JSON.stringify(key.length > 80 ? `${key.slice(0, 80)}…` : key) : String(key);
  throw new Error(`Unsafe blob key ${shown}: it ${problem}.`);
}

/**
 * Throws unless `prefix` is a run of whole key segments, each ending in "/" (`uploads/`, or empty
 * for everything): a listing never starts in the middle of a name or outside the root.
 */
export function assertSafePrefix(prefix: string): void {
  if (prefix === '') return;
  if (!prefix.endsWith('/') || keyProblem(`${prefix}x.x`) !== null)
    throw new Error(
      `Unsafe blob key prefix ${JSON.stringify(prefix.slice(0, 80))}: it must be whole key segments, each ending in "/".`,
    );
}

// Every format the intake accepts must be here: an upload is stored under its format's extension,
// and a store refuses a content type its key's extension does not stand for.
const contentTypes: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
  avif: 'image/avif',
  tiff: 'image/tiff',
  tif: 'image/tiff',
};

/** The content type a key's extension stands for; what a store that keeps no metadata serves. */
export function contentTypeForKey(key: string): string {
  const extension = /\.([A-Za-z0-9]+)$/.exec(key)?.[1]?.toLowerCase();
  return (extension && contentTypes[extension]) || 'application/octet-stream';
}

/**
 * Throws when `contentType` contradicts the key's extension. The local adapter serves the type
 * the extension implies (a file has nowhere atomic to keep metadata), so every adapter refuses a
 * mismatch: what `get` returns is then what `put` was told, whichever adapter is configured.
 */
export function assertContentTypeFitsKey(key: string, contentType: string): void {
  const given = contentType.split(';')[0]!.trim().toLowerCase();
  const expected = contentTypeForKey(key);
  if (given !== expected) {
    throw new Error(
      `Content type "${contentType}" does not fit blob key ${JSON.stringify(key)}, whose extension means "${expected}".`,
    );
  }
}

/** Quoted sha256 of the bytes: a strong validator that is the same for the same bytes on every host. */
export function etagFor(bytes: Uint8Array): string {
  return `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
}
