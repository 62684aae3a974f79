import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { staticAsset, type StaticAsset } from './static-asset.ts';

/**
 * Browser bundles built ahead by `npm run build` (scripts/build-bundles.ts): content-hashed files
 * and a manifest of the builds they belong to, newest first (the current build and the one before
 * it). Every process serves the files of both, so during a rolling deploy a page that loaded the
 * previous loader still gets its bundle from a process of the new release.
 */
export interface BundleBuild {
  builtAt: string;
  /** What the build was given to tell releases apart (`--release`), if anything. */
  release: string | null;
  /** Role → file name, e.g. `sdk.widget` → `widget.3f9a….js`. */
  entries: Record<string, string>;
}

export interface BundleManifest {
  builds: BundleBuild[];
}

export const manifestName = 'manifest.json';

/** `build/bundles` at the package's root: where `npm run build` writes unless told otherwise (VISUALIZER_BUNDLES_DIR). */
export const defaultBundlesDir = fileURLToPath(new URL('../../build/bundles/', import.meta.url));

export interface PrebuiltBundles {
  /** The newest build's entries. */
  current: Record<string, string>;
  /** Every file of every build in the manifest, by file name. */
  files: Map<string, StaticAsset>;
  /** The file names of a role across the builds, newest first (`sdk.widget` → the widgets). */
  named(role: string): string[];
}

const contentType = (file: string) =>
  file.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8';

/** The bundles in `dir`, or null when it holds no manifest (nothing was built there). */
export async function readPrebuiltBundles(dir: string): Promise<PrebuiltBundles | null> {
  let text: string;
  try {
    text = await readFile(path.join(dir, manifestName), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const manifest = JSON.parse(text) as BundleManifest;
  if (!manifest.builds?.length)
    throw new Error(`${path.join(dir, manifestName)} lists no build: run 'npm run build' again`);
  const files = new Map<string, StaticAsset>();
  for (const build of manifest.builds) {
    for (const file of Object.values(build.entries)) {
      if (!files.has(file)) files.set(file, staticAsset(await readFile(path.join(dir, file)), contentType(file)));
    }
  }
  return {
    current: manifest.builds[0]!.entries,
    files,
    named: (role) =>
      manifest.builds.map((build) => build.entries[role]).filter((file): file is string => file !== undefined),
  };
}

const loaded = new Map<string, { bundles: Promise<PrebuiltBundles | null>; readAt: number }>();
/** A miss re-reads the manifest at most this often: a name nobody built costs no disk read per request. */
const rereadAfterMs = 10_000;

/**
 * readPrebuiltBundles, once per process and directory; a failed read is retried by the next call.
 * Null without a directory configured: the bundles are then built in the process on first use,
 * always from the sources beside it (what development and the tests want).
 *
 * `reread` (for a file name this process does not know) reads the manifest again unless it was
 * read lately: a process of the previous release whose directory a new build updated in place
 * then serves the new release's bundles too, to a page that loaded the new loader elsewhere.
 */
export async function prebuiltBundles(
  dir: string | undefined,
  { reread = false } = {},
): Promise<PrebuiltBundles | null> {
  if (dir === undefined) return null;
  const resolved = path.resolve(dir);
  const found = loaded.get(resolved);
  if (found && !(reread && Date.now() - found.readAt > rereadAfterMs)) return found.bundles;
  const bundles = readPrebuiltBundles(resolved);
  const entry = { bundles, readAt: Date.now() };
  loaded.set(resolved, entry);
  try {
    return await bundles;
  } catch (error) {
    // A failed read is retried by the next call; a failed re-read keeps serving what was read before.
    if (loaded.get(resolved) === entry) found ? loaded.set(resolved, found) : loaded.delete(resolved);
    if (found) return found.bundles;
    throw error;
  }
}
