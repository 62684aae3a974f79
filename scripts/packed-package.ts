/**
 * The package as npm publishes it: `npm pack` of this checkout, installed from the tarball into a
 * folder outside the checkout, so nothing resolves through the checkout's own files or
 * node_modules. The tarball test (test/package-tarball.test.ts) and the examples' run
 * (scripts/test-examples.ts) both use it, so they check the same thing a user installs.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const checkoutRoot = path.resolve(import.meta.dirname, '..');

/**
 * The environment without npm's own `npm_*` variables: under `npm test` they describe the
 * checkout's project, and an npm run inside another folder must not inherit them.
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  // Nor c8's coverage variable: the installed package is not the checkout's code, and writing its
  // coverage only costs the run time.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.toLowerCase().startsWith('npm_') && name !== 'NODE_V8_COVERAGE',
    ),
  );
  // No update check or funding notes: tests contact loopback and the registry only.
  return { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', ...extra };
}

/** Runs npm in `cwd`; a failure throws with npm's output. */
export async function npm(args: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  try {
    const { stdout } = await run('npm', args, { cwd, env: cleanEnv(env), maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `npm ${args.join(' ')} in ${cwd} failed: ${failed.message}\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}`,
    );
  }
}

/** `npm pack` of the checkout into `destination`; returns the tarball's absolute path. */
export async function packPackage(destination: string): Promise<string> {
  await mkdir(destination, { recursive: true });
  const [packed] = JSON.parse(await npm(['pack', '--json', '--pack-destination', destination], checkoutRoot)) as [
    { filename: string },
  ];
  return path.join(destination, packed.filename);
}

/**
 * better-sqlite3's install downloads a prebuilt binary from GitHub and, where it cannot (CI and
 * this project's machines have only the npm registry), compiles SQLite from source: minutes on a
 * small machine, for every install. The checkout's node_modules holds the same version already
 * compiled for this Node, so it is offered as a local prebuild (prebuild-install's
 * `npm_config_<package>_local_prebuilds`). An install that resolves another version finds no file
 * of its name there and compiles, as a user's would. Returns the variable to set, and a cleanup.
 */
async function checkoutSqlitePrebuild(): Promise<{ env: Record<string, string>; remove(): Promise<void> }> {
  const packageDir = path.join(checkoutRoot, 'node_modules/better-sqlite3');
  const binary = 'build/Release/better_sqlite3.node';
  if (!existsSync(path.join(packageDir, binary))) return { env: {}, remove: async () => {} };
  const { version } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string };
  const dir = await mkdtemp(path.join(os.tmpdir(), 'visualizer-sqlite-prebuild-'));
  // The name prebuild-install looks for: the basename of the release asset it would download.
  const file = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  await run('tar', ['-czf', path.join(dir, file), '-C', packageDir, binary]);
  return {
    env: { npm_config_better_sqlite3_local_prebuilds: dir },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * Installs `specs` (a tarball path among them) in `dir` as a user would, from the registry or
 * npm's cache; `dir` gets a package.json of its own first when `createManifest` says so.
 */
export async function installPackage(dir: string, specs: string[], { createManifest = false } = {}): Promise<void> {
  if (createManifest) {
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, 'package.json'),
      `${JSON.stringify({ name: 'visualizer-user', private: true, type: 'module' }, null, 2)}\n`,
    );
  }
  const prebuild = await checkoutSqlitePrebuild();
  try {
    await npm(['install', '--no-audit', '--no-fund', '--prefer-offline', ...specs], dir, prebuild.env);
  } finally {
    await prebuild.remove();
  }
}
