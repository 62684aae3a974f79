/**
 * `npm run test:example`: every plugin package under examples/ installed and tested the way a
 * third party's would be. The checkout is packed once; each example is copied to a folder outside
 * the checkout and installs that tarball, so it sees only the published files and the packages it
 * declares (in place, Node would also find the checkout's node_modules and hide a dependency the
 * example forgot). Then its type check and its tests run there.
 *
 * Usage: node --import tsx scripts/test-examples.ts [NAME …]   (default: every example)
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkoutRoot, cleanEnv, installPackage, packPackage } from './packed-package.ts';

const examplesDir = path.join(checkoutRoot, 'examples');
const requested = process.argv.slice(2);
const examples = readdirSync(examplesDir).filter(
  (name) => existsSync(path.join(examplesDir, name, 'package.json')) && (!requested.length || requested.includes(name)),
);
if (!examples.length)
  throw new Error(`no example to test under ${examplesDir}${requested.length ? ` named ${requested.join(', ')}` : ''}`);

/** Runs an npm script with its output on ours; a failure ends the run. */
async function npmRun(script: string, cwd: string): Promise<void> {
  console.log(`==> ${path.basename(cwd)}: npm run ${script}`);
  const child = spawn('npm', ['run', script], { cwd, env: cleanEnv(), stdio: 'inherit' });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`npm run ${script} in ${path.basename(cwd)} failed (${code})`);
}

const temp = mkdtempSync(path.join(os.tmpdir(), 'visualizer-examples-'));
try {
  const tarball = await packPackage(path.join(temp, 'pack'));
  console.log(`==> packed ${path.basename(tarball)}`);
  let installed: string | undefined;
  for (const name of examples) {
    const dir = path.join(temp, name);
    cpSync(path.join(examplesDir, name), dir, {
      recursive: true,
      filter: (source) => path.basename(source) !== 'node_modules',
    });
    // The install compiles better-sqlite3, minutes on a small machine: later examples start from
    // the first one's node_modules, and npm adds and prunes what their own package.json differs in.
    if (installed)
      cpSync(path.join(installed, 'node_modules'), path.join(dir, 'node_modules'), {
        recursive: true,
        verbatimSymlinks: true,
      });
    console.log(`==> ${name}: npm install ${path.basename(tarball)}`);
    await installPackage(dir, [tarball]);
    installed = dir;
    await npmRun('typecheck', dir);
    await npmRun('test', dir);
  }
} finally {
  rmSync(temp, { recursive: true, force: true });
}
