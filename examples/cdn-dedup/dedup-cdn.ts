import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readdir, readFile, rename, rmdir, stat, unlink, utimes } from 'node:fs/promises';
import path from 'node:path';
import {
  assertContentTypeFitsKey,
  assertSafeKey,
  assertSafePrefix,
  contentTypeForKey,
  etagFor,
  type FetchedObject,
  type ImageCdn,
  type ListedObject,
  type StoredObject,
  type Visibility,
} from 'visualizer/plugin';

export interface DedupCdnOptions {
  /** Directory holding `blobs/`, `public/` and `private/`; created on first write. */
  root: string;
  /** Base of the app's public URLs; objects are served by the app at `<base>/cdn/<key>`. */
  publicBaseUrl: string;
}

const code = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code;

/** A write's temp file untouched this long belongs to a process that died mid-write. */
const staleTempMs = 3_600_000;

async function removeIfStale(file: string): Promise<void> {
  const stats = await stat(file).catch(() => null);
  if (stats?.isFile() && Date.now() - stats.mtimeMs > staleTempMs) await unlink(file).catch(() => {});
}

/** Writes `bytes` to `file` through a temp file beside it, synced before the rename, so a crash leaves the old file or the new one. */
async function writeDurably(file: string, bytes: Uint8Array): Promise<void> {
  // A leading dot: no key segment can start with one, so listings never mistake a temp file for an object.
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}`);
  const handle = await open(temp, 'wx');
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, file);
}

/**
 * An image CDN that keeps each distinct image once. The bytes live in `blobs/` under their hash;
 * a key is a hard link to its blob under `public/` or `private/`. A render stored at three widths
 * and re-stored by a retry, or the same product photo uploaded by many shoppers, takes the space
 * of its distinct images only, and deleting a key never touches another key's bytes.
 */
export function createDedupCdn(options: DedupCdnOptions): ImageCdn {
  const root = path.resolve(options.root);
  const baseUrl = options.publicBaseUrl.replace(/\/+$/, '');
  const blobs = path.join(root, 'blobs');
  const trees: Record<Visibility, string> = { public: path.join(root, 'public'), private: path.join(root, 'private') };

  function fileFor(key: string, visibility: Visibility): string {
    assertSafeKey(key);
    const tree = trees[visibility];
    if (!tree) throw new Error(`Unknown visibility ${JSON.stringify(visibility)}.`);
    return path.join(tree, ...key.split('/'));
  }

  /** The blob holding `bytes`, written if no key has held them yet, and touched so listings date it to this write. */
  async function blobFor(bytes: Uint8Array, extension: string): Promise<string> {
    const etag = etagFor(bytes);
    const blob = path.join(blobs, `${etag.slice(1, -1)}${extension}`);
    try {
      const now = new Date();
      await utimes(blob, now, now);
    } catch (error) {
      if (code(error) !== 'ENOENT') throw error;
      await mkdir(blobs, { recursive: true });
      await writeDurably(blob, bytes);
    }
    return blob;
  }

  /** Links `file` to `blob` atomically, replacing what the key held; retried when a delete removes the blob or the folder in between. */
  async function linkKey(file: string, bytes: Uint8Array, extension: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const blob = await blobFor(bytes, extension);
      const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}`);
      try {
        await mkdir(path.dirname(file), { recursive: true });
        await link(blob, temp);
        await rename(temp, file);
        return;
      } catch (error) {
        if (code(error) !== 'ENOENT' || attempt === 5) throw error;
      }
    }
  }

  /** Removes the folders a delete left empty, up to the visibility's tree; a folder a write just filled stays. */
  async function pruneFolders(file: string, tree: string): Promise<void> {
    for (let folder = path.dirname(file); folder !== tree && folder.startsWith(tree); folder = path.dirname(folder)) {
      try {
        await rmdir(folder);
      } catch {
        return;
      }
    }
  }

  async function* walk(folder: string, keyPrefix: string): AsyncGenerator<ListedObject> {
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch (error) {
      if (code(error) === 'ENOENT' || code(error) === 'ENOTDIR') return;
      throw error;
    }
    for (const entry of entries) {
      const key = `${keyPrefix}${entry.name}`;
      const file = path.join(folder, entry.name);
      if (entry.name.startsWith('.')) {
        // A write in progress, or one a crash cut short; the second kind is removed once stale.
        await removeIfStale(file);
        continue;
      }
      if (entry.isDirectory()) {
        yield* walk(file, `${key}/`);
      } else if (entry.isFile()) {
        const stats = await stat(file).catch((error) => (code(error) === 'ENOENT' ? null : Promise.reject(error)));
        if (stats) yield { key, modifiedAt: stats.mtimeMs };
      }
    }
  }

  return {
    servedByApp: true,

    publicUrl(key) {
      assertSafeKey(key);
      return `${baseUrl}/cdn/${key}`;
    },

    async put(key, body, { contentType, visibility }): Promise<StoredObject> {
      const file = fileFor(key, visibility);
      assertContentTypeFitsKey(key, contentType);
      // The blob keeps the key's extension, so a look at `blobs/` shows what each file is.
      await linkKey(file, body, path.extname(key).toLowerCase());
      return {
        key,
        contentType: contentTypeForKey(key),
        size: body.byteLength,
        url: visibility === 'public' ? `${baseUrl}/cdn/${key}` : null,
      };
    },

    async get(key, visibility): Promise<FetchedObject | null> {
      const file = fileFor(key, visibility);
      let bytes: Uint8Array;
      try {
        bytes = new Uint8Array(await readFile(file));
      } catch (error) {
        // A directory, or a path through a file, is no object either.
        if (['ENOENT', 'EISDIR', 'ENOTDIR'].includes(code(error) ?? '')) return null;
        throw error;
      }
      return { body: bytes, contentType: contentTypeForKey(key), etag: etagFor(bytes) };
    },

    async delete(key, visibility) {
      const file = fileFor(key, visibility);
      try {
        await unlink(file);
      } catch (error) {
        if (['ENOENT', 'EISDIR', 'ENOTDIR', 'EPERM'].includes(code(error) ?? '')) return;
        throw error;
      }
      await pruneFolders(file, trees[visibility]);
    },

    async *list(prefix, visibility) {
      assertSafePrefix(prefix);
      const tree = trees[visibility];
      yield* walk(prefix ? path.join(tree, ...prefix.slice(0, -1).split('/')) : tree, prefix);
    },
  };
}

/**
 * Removes the blobs no key links to any more (a blob file with one link is only itself), and that
 * no write has touched for `olderThanMs`, so a write between storing a blob and linking its key
 * keeps it. Returns how many were removed.
 */
export async function collectGarbage(root: string, olderThanMs = staleTempMs): Promise<number> {
  const blobs = path.join(path.resolve(root), 'blobs');
  let removed = 0;
  let names: string[];
  try {
    names = await readdir(blobs);
  } catch (error) {
    if (code(error) === 'ENOENT') return 0;
    throw error;
  }
  for (const name of names) {
    const file = path.join(blobs, name);
    const stats = await stat(file).catch(() => null);
    if (!stats?.isFile() || stats.nlink > 1 || Date.now() - stats.mtimeMs < olderThanMs) continue;
    await unlink(file).catch(() => {});
    removed++;
  }
  return removed;
}
