/**
 * The out-of-tree plugins under examples/, as `npm run test:example` runs them: each installed from
 * the checkout's `npm pack` tarball in a folder outside the checkout, then its type check and its
 * tests. Here, so that they run beside the other suites rather than after all of them.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { cleanEnv } from '../scripts/packed-package.ts';

const root = path.join(import.meta.dirname, '..');
const examples = readdirSync(path.join(root, 'examples')).filter((name) =>
  existsSync(path.join(root, 'examples', name, 'package.json')),
);

describe('the example plugins, installed from the packed package', { timeout: 900_000 }, () => {
  it(`type-check and pass their tests: ${examples.join(', ')}`, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'test-examples.ts')], {
      cwd: root,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0, output.slice(-20_000));
    for (const name of examples) {
      assert.match(output, new RegExp(`==> ${name}: npm run typecheck`), `${name} was type-checked`);
      assert.match(output, new RegExp(`==> ${name}: npm run test`), `${name}'s tests ran`);
    }
  });
});
