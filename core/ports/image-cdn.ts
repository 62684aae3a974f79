/**
 * Image CDN / blob store port. Adapters: `local` (files under the data dir, served at `/cdn/…`)
 * and `s3` (any S3-protocol service, optionally behind a CDN domain).
 *
 * An adapter must guarantee:
 * - `put` is durable once it resolves, and writing the same key twice leaves one object
 *   (retries after a crash are safe).
 * - Public objects get a permanent URL that never changes for the key; private objects
 *   (customer uploads) are never reachable through any public URL.
 * - Keys are opaque paths made by the core (`[a-zA-Z0-9/_.-]`); an adapter never lets a key
 *   escape its root (no `..`, no absolute paths).
 */
export type Visibility = 'public' | 'private';

export interface StoredObject {
  key: string;
  contentType: string;
  size: number;
  /** Permanent public URL, or null for private objects. */
  url: string | null;
}

export interface ImageCdn {
  put(key: string, body: Uint8Array, options: { contentType: string; visibility: Visibility }): Promise<StoredObject>;
  get(key: string): Promise<{ body: Uint8Array; contentType: string } | null>;
  /** The public URL an object has, or would have, under this key. */
  publicUrl(key: string): string;
  delete(key: string): Promise<void>;
}
