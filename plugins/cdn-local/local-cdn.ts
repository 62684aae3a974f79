import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rmdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import {
  assertContentTypeFitsKey,
  assertSafeKey,
  assertSafePrefix,
  contentTypeForKey,
  etagFor,
  isSafeKey,
  type FetchedObject,
  type ImageCdn,
  type ListedObject,
  type StoredObject,
  type Visibility,
} from '../../kit/plugin.ts';

export interface LocalCdnOptions {
  /** Directory holding `public/` and `private/`; created on first write. */
  root: string;
  /** Base of the app's public URLs (no trailing slash); objects are served at `<base>/cdn/<key>`. */
  publicBaseUrl: string;
  /** A write's temp file this old is the remains of a process that died mid-write (default 5 minutes); `list` removes it. */
  staleTempMs?: number;
}

/**
 * A write touches its temp file for a few seconds at most, so one untouched for 5 minutes was cut
 * short by a crash. It must stay below `render.strayImagesAfterMs` (10 minutes): the stray-image
 * job's listing of a generation is the only one that sees a dead run's folder, and it comes once.
 */
export const defaultStaleTempMs = 300_000;

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** fsync a directory so a rename or a new entry in it survives a crash. Some platforms cannot (Windows). */
async function syncDirectory(directory: string): Promise<void> {
  let handle;
  try {
    handle = await open(directory, 'r');
    await handle.sync();
  } catch (error) {
    if (!['EISDIR', 'EPERM', 'EINVAL', 'EBADF'].includes(errorCode(error) ?? '')) throw error;
  } finally {
    await handle?.close();
  }
}

/**
 * Image CDN on the local file system: public objects under `<root>/public/<key>`, private ones
 * under `<root>/private/<key>`. The app serves public objects at `/cdn/<key>` via `get(key, 'public')`;
 * nothing serves the private tree, and no key can reach it from the public one.
 */
export function createLocalCdn(options: LocalCdnOptions): ImageCdn {
  const root = path.resolve(options.root);
  const baseUrl = options.publicBaseUrl.replace(/\/+$/, '');
  const roots: Record<Visibility, string> = { public: path.join(root, 'public'), private: path.join(root, 'private') };

  function rootFor(visibility: Visibility): string {
    const base = roots[visibility];
    if (!base) throw new Error(`Unknown visibility ${JSON.stringify(visibility)}.`);
    return base;
  }

  /**
   * The file for a key. Keys are validated first; the containment check after `path.resolve`
   * is a second wall, so even a key that slipped past validation cannot leave its visibility's tree.
   */
  function fileFor(key: string, visibility: Visibility): string {
    assertSafeKey(key);
    const base = rootFor(visibility);
    const file = path.resolve(base, key);
    if (!file.startsWith(base + path.sep))
      throw new Error(`Blob key ${JSON.stringify(key)} resolves outside the ${visibility} store.`);
    return file;
  }

  /** Creates the directory, then fsyncs the parents of every directory it had to create. */
  async function ensureDirectory(directory: string): Promise<void> {
    const firstCreated = await mkdir(directory, { recursive: true });
    if (firstCreated === undefined) return;
    for (let current = directory; ; current = path.dirname(current)) {
      await syncDirectory(path.dirname(current));
      if (current === firstCreated || current === path.dirname(current)) break;
    }
  }

  /**
   * Removes `directory` and then its parents, up to the visibility's root, while they are empty.
   * Deleted keys leave no folders behind: every upload has one (`uploads/<generation id>/`), and
   * the upload sweep reads the whole tree, so empty ones would slow it for ever.
   */
  async function removeEmptyDirectories(directory: string, base: string): Promise<void> {
    for (let current = directory; current.startsWith(base + path.sep); current = path.dirname(current)) {
      try {
        await rmdir(current);
      } catch {
        return; // not empty (ENOTEMPTY), or gone already
      }
    }
  }

  /** Creates a write's temp file, and its directory when that is missing: new, or just removed by a delete that emptied it. */
  async function openTemp(directory: string, temp: string) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await open(temp, 'wx');
      } catch (error) {
        if (errorCode(error) !== 'ENOENT' || attempt === 5) throw error;
      }
      await ensureDirectory(directory);
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
      const directory = path.dirname(file);
      // Write beside the target and rename over it: readers see the old object or the whole new
      // one, never a torn write. `~` is not a key character, so a temp file is never a key. While
      // the temp file is there, the directory is not empty, so no delete removes it.
      const temp = `${file}.${randomBytes(6).toString('hex')}~`;
      try {
        const handle = await openTemp(directory, temp);
        try {
          await handle.writeFile(body);
          await handle.sync();
        } finally {
          await handle.close();
        }
        await rename(temp, file);
      } catch (error) {
        await unlink(temp).catch(() => {});
        throw error;
      }
      await syncDirectory(directory);
      return {
        key,
        contentType: contentTypeForKey(key),
        size: body.byteLength,
        url: visibility === 'public' ? `${baseUrl}/cdn/${key}` : null,
      };
    },

    async get(key, visibility): Promise<FetchedObject | null> {
      const file = fileFor(key, visibility);
      let body: Buffer;
      try {
        body = await readFile(file);
      } catch (error) {
        // Missing, a directory, or a path through a file: no object under that key.
        if (['ENOENT', 'EISDIR', 'ENOTDIR'].includes(errorCode(error) ?? '')) return null;
        throw error;
      }
      return {
        body: new Uint8Array(body.buffer, body.byteOffset, body.byteLength),
        contentType: contentTypeForKey(key),
        etag: etagFor(body),
      };
    },

    async delete(key, visibility) {
      const file = fileFor(key, visibility);
      try {
        await unlink(file);
      } catch (error) {
        if (['ENOENT', 'ENOTDIR', 'EISDIR'].includes(errorCode(error) ?? '')) return;
        throw error;
      }
      // A concurrent delete that emptied the folder may have removed it already: its entries went with it.
      await syncDirectory(path.dirname(file)).catch((error: unknown) => {
        if (errorCode(error) !== 'ENOENT') throw error;
      });
      await removeEmptyDirectories(path.dirname(file), rootFor(visibility));
    },

    async *list(prefix, visibility): AsyncIterable<ListedObject> {
      assertSafePrefix(prefix);
      const base = rootFor(visibility);
      let entries;
      try {
        entries = await readdir(path.join(base, prefix), { recursive: true, withFileTypes: true });
      } catch (error) {
        if (['ENOENT', 'ENOTDIR'].includes(errorCode(error) ?? '')) return;
        throw error;
      }
      const staleBefore = Date.now() - (options.staleTempMs ?? defaultStaleTempMs);
      for (const entry of entries) {
        if (!entry.isFile()) continue;
        const file = path.join(entry.parentPath, entry.name);
        // Deleted since the directory was read: no longer there to list.
        const info = await stat(file).catch(() => null);
        if (!info) continue;
        const key = path.relative(base, file).split(path.sep).join('/');
        if (isSafeKey(key)) {
          yield { key, modifiedAt: info.mtimeMs };
        } else if (entry.name.endsWith('~') && info.mtimeMs < staleBefore) {
          // A put's temp file that was never renamed: its process died mid-write. Listing is how sweeps
          // find what a crash left, so the bytes (a customer's photo, perhaps) go now rather than never,
          // and so does a folder they alone kept (a write that died was perhaps its first), as a delete's would.
          if (
            await unlink(file).then(
              () => true,
              () => false,
            )
          )
            await removeEmptyDirectories(entry.parentPath, base);
        }
      }
    },
  };
}
