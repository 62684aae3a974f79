/**
 * The whole tree is formatted and linted by Biome (biome.json); this is where CI checks it. To fix
 * what it finds: `npm run format` rewrites the formatting, `npm run lint` lists the rest.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { it } from 'node:test';
import { promisify } from 'node:util';

const root = path.join(import.meta.dirname, '..');
const biome = path.join(root, 'node_modules', '.bin', 'biome');

it('Biome finds nothing to format or fix in the tree', async () => {
  const run = await promisify(execFile)(
    biome,
    ['ci', '--colors=off', '--error-on-warnings', '--max-diagnostics=20', '.'],
    { cwd: root, maxBuffer: 16 * 1024 * 1024 },
  ).then(
    () => ({ code: 0, output: '' }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      output: error.stdout + error.stderr,
    }),
  );
  assert.equal(run.code, 0, `biome ci found problems:\n${run.output}`);
});
