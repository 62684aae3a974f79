import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import semver from 'semver';

const root = new URL('../', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8'));

it('supports, on its oldest declared Node, every installed package', () => {
  const oldest = semver.minVersion(manifest.engines.node)!;
  const refusing = Object.entries(lock.packages as Record<string, { engines?: { node?: string } }>)
    .filter(([, entry]) => typeof entry.engines?.node === 'string' && !semver.satisfies(oldest, entry.engines.node))
    .map(([name, entry]) => `${name} needs node ${entry.engines!.node}`);
  assert.deepEqual(refusing, [], `engines.node is ${manifest.engines.node}`);
});

it('runs on the Node it declares', () => {
  assert.ok(
    semver.satisfies(process.version, manifest.engines.node),
    `${process.version} is outside ${manifest.engines.node}`,
  );
});
