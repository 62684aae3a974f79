/**
 * `npm run build`: writes the browser bundles (the SDK's loader and widget, the dashboard's script
 * and style sheet) with content-hashed names into the bundles directory, and a manifest listing
 * this build and the one before it. Files of older builds are deleted. Every process serves the
 * files of both builds (core/http/prebuilt-bundles.ts), so keep the directory from one deploy to
 * the next (a volume, a CI cache) for a page loaded before a rolling deploy to keep working.
 *
 * Usage: node --import tsx scripts/build-bundles.ts [--out DIR] [--release TEXT]
 *   --out      default VISUALIZER_BUNDLES_DIR, else build/bundles in the package
 *   --release  names the release in a comment at the top of each bundle (a version, a commit)
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  defaultBundlesDir,
  manifestName,
  type BundleBuild,
  type BundleManifest,
} from '../core/http/prebuilt-bundles.ts';
import { buildDashboardAssets } from '../dashboard/build.ts';
import { buildSdkAssets } from '../sdk/serve-bundles.ts';

/** How many builds the manifest keeps: the current one and the one before it. */
const keptBuilds = 2;

const hashedName = (stem: string, extension: string, body: Uint8Array) =>
  `${stem}.${createHash('sha256').update(body).digest('hex').slice(0, 16)}.${extension}`;

async function previousManifest(dir: string): Promise<BundleManifest> {
  try {
    return JSON.parse(await readFile(path.join(dir, manifestName), 'utf8')) as BundleManifest;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { builds: [] };
    throw error;
  }
}

export async function buildBundles({
  out,
  release,
}: {
  out: string;
  release?: string;
}): Promise<{ manifest: BundleManifest; deleted: string[] }> {
  const dir = path.resolve(out);
  const banner = release ? `/*! visualizer ${release.replace(/\*\//g, '* /')} */` : undefined;
  const [sdk, dashboard] = await Promise.all([buildSdkAssets({ banner }), buildDashboardAssets({ banner })]);
  const written = new Map<string, Uint8Array>([
    [hashedName('embed', 'js', sdk.loader.body), sdk.loader.body],
    [sdk.widgetPath.slice('/widgets/'.length), sdk.widget.body],
    [dashboard.script, dashboard.files.get(dashboard.script)!.body],
    [dashboard.style, dashboard.files.get(dashboard.style)!.body],
  ]);
  const [loader, widget] = [...written.keys()];
  const build: BundleBuild = {
    builtAt: new Date().toISOString(),
    release: release ?? null,
    entries: {
      'sdk.loader': loader!,
      'sdk.widget': widget!,
      'dashboard.script': dashboard.script,
      'dashboard.style': dashboard.style,
    },
  };

  await mkdir(dir, { recursive: true });
  for (const [file, body] of written) await writeFile(path.join(dir, file), body);
  const previous = await previousManifest(dir);
  // A rebuild of the same sources is the same build: it does not push the previous one out.
  const same = (other: BundleBuild) => JSON.stringify(other.entries) === JSON.stringify(build.entries);
  const manifest: BundleManifest = {
    builds: [build, ...previous.builds.filter((other) => !same(other))].slice(0, keptBuilds),
  };
  // Readers see the old manifest or the new one whole, never a part.
  const temporary = path.join(dir, `.${manifestName}.${process.pid}`);
  await writeFile(temporary, `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(temporary, path.join(dir, manifestName));

  const kept = new Set([manifestName, ...manifest.builds.flatMap((kept) => Object.values(kept.entries))]);
  const deleted = (await readdir(dir)).filter((file) => !kept.has(file) && !file.startsWith('.'));
  for (const file of deleted) await rm(path.join(dir, file), { force: true });
  return { manifest, deleted };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { out: { type: 'string' }, release: { type: 'string' } } });
  const out = values.out ?? process.env.VISUALIZER_BUNDLES_DIR ?? defaultBundlesDir;
  const { manifest, deleted } = await buildBundles({ out, release: values.release });
  const [current, previous] = manifest.builds;
  console.log(`Bundles written to ${path.resolve(out)}: ${Object.values(current!.entries).join(', ')}`);
  console.log(previous ? `Previous build kept: ${Object.values(previous.entries).join(', ')}` : 'No previous build.');
  if (deleted.length) console.log(`Deleted older bundles: ${deleted.join(', ')}`);
}
