/**
 * Image CDN / blob store port. Adapters: `local` (files under the data dir, served by the app at
 * `/cdn/…`) and `s3` (any S3-protocol service, optionally behind a CDN domain).
 * The guarantees an adapter gives are on `ImageCdn` (what an editor shows on hover).
 */
export type Visibility = 'public' | 'private';

export interface StoredObject {
  key: string;
  contentType: string;
  size: number;
  /** Permanent public URL, or null for private objects. */
  url: string | null;
}

export interface ListedObject {
  key: string;
  /** Epoch milliseconds. */
  modifiedAt: number;
}

export interface FetchedObject {
  body: Uint8Array;
  contentType: string;
  /** A strong validator for the bytes, quoted as HTTP wants it. */
  etag: string;
}

/**
 * Stores images and other blobs, and gives public ones their permanent URL.
 *
 * An adapter must guarantee:
 * - `put` is durable once it resolves, and writing the same key twice leaves one object
 *   (a retry after a crash is safe).
 * - Public objects get a permanent URL that never changes for the key; private objects
 *   (customer uploads) are never reachable through any public URL.
 * - Keys are paths made by the core from `[A-Za-z0-9/_.-]` ending in an extension; an adapter
 *   refuses any key that could escape its root (`..`, absolute paths, empty segments).
 */
export interface ImageCdn {
  put(key: string, body: Uint8Array, options: { contentType: string; visibility: Visibility }): Promise<StoredObject>;
  /** The object stored under `key` with that visibility, or null. */
  get(key: string, visibility: Visibility): Promise<FetchedObject | null>;
  /** The permanent public URL a public object has, or would have, under this key. */
  publicUrl(key: string): string;
  delete(key: string, visibility: Visibility): Promise<void>;
  /**
   * Every object whose key starts with `prefix` (say `uploads/`), with when it was written, in no
   * particular order; for sweeps that find what a crash left behind. Only keys `put` could have made.
   */
  list(prefix: string, visibility: Visibility): AsyncIterable<ListedObject>;
  /** True when public URLs point at this app's `/cdn/` route, which then serves `get(key, 'public')`. */
  readonly servedByApp: boolean;
}
