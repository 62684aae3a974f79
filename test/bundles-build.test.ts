import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { BundleManifest } from '../core/http/prebuilt-bundles.ts';
import { bin } from './support/cli.ts';
import { waitFor } from './support/wait-for.ts';

const run = promisify(execFile);
const root = path.join(import.meta.dirname, '..');

/** `npm run build` as a deploy step runs it, into `out`, naming a release. */
async function build(out: string, release: string) {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', 'scripts/build-bundles.ts', '--out', out, '--release', release],
    { cwd: root },
  );
  const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as BundleManifest;
  return { stdout, manifest, entries: manifest.builds[0]!.entries };
}

describe('bundles built ahead (npm run build) and served across a rolling deploy', () => {
  let dir = '';
  const out = () => path.join(dir, 'bundles');
  before(() => void (dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-bundles-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the previous build beside the current one, and deletes older ones', async () => {
    const first = await build(out(), 'r1');
    assert.deepEqual(
      first.manifest.builds.map((build) => build.release),
      ['r1'],
    );
    assert.match(first.entries['sdk.widget']!, /^widget\.[0-9a-f]{16}\.js$/);
    assert.match(first.entries['sdk.loader']!, /^embed\.[0-9a-f]{16}\.js$/);
    assert.match(readFileSync(path.join(out(), first.entries['sdk.widget']!), 'utf8'), /^\/\*! visualizer r1 \*\//);

    const second = await build(out(), 'r2');
    assert.deepEqual(
      second.manifest.builds.map((build) => build.release),
      ['r2', 'r1'],
    );
    assert.notEqual(second.entries['sdk.widget'], first.entries['sdk.widget'], 'a changed input changes the hash');

    const third = await build(out(), 'r3');
    assert.deepEqual(
      third.manifest.builds.map((build) => build.release),
      ['r3', 'r2'],
    );
    const files = readdirSync(out()).sort();
    assert.ok(!files.includes(first.entries['sdk.widget']!), 'the build before the previous one is deleted');
    assert.deepEqual(
      files,
      ['manifest.json', ...Object.values(third.entries), ...Object.values(second.entries)]
        .filter((file, index, all) => all.indexOf(file) === index)
        .sort(),
    );
    assert.match(third.stdout, /Deleted older bundles: .*widget\./);

    // The same release built again is the same build: the previous one stays.
    const again = await build(out(), 'r3');
    assert.deepEqual(
      again.manifest.builds.map((build) => build.release),
      ['r3', 'r2'],
    );
  });

  it('a fresh process serves the current loader and the widgets of both builds; other hashes are 404', async () => {
    const manifest = JSON.parse(readFileSync(path.join(out(), 'manifest.json'), 'utf8')) as BundleManifest;
    const [current, previous] = manifest.builds.map((build) => build.entries) as [
      Record<string, string>,
      Record<string, string>,
    ];
    const data = path.join(dir, 'data');
    const server = spawn(bin, ['serve'], {
      env: { ...process.env, PORT: '0', VISUALIZER_DATA_DIR: data, VISUALIZER_BUNDLES_DIR: out() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    server.stdout!.on('data', (chunk) => (stdout += chunk));
    server.stderr!.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise((resolve) => server.once('exit', resolve));
    try {
      await waitFor(
        'serve listening',
        () => {
          if (server.exitCode !== null) throw new Error(`serve exited: ${stderr}`);
          return /listening on/.test(stdout);
        },
        60_000,
      );
      const url = /listening on (http:\S+)/.exec(stdout)![1]!;
      const file = (name: string) => readFileSync(path.join(out(), name), 'utf8');

      const loader = await fetch(`${url}/widgets/embed.js`);
      assert.equal(loader.status, 200);
      const loaderText = await loader.text();
      assert.equal(loaderText, file(current['sdk.loader']!), 'the current build’s loader, as written');
      assert.ok(loaderText.includes(`/widgets/${current['sdk.widget']}`), 'which names the current widget');

      for (const entries of [current, previous]) {
        const widget = await fetch(`${url}/widgets/${entries['sdk.widget']}`);
        assert.equal(widget.status, 200, entries['sdk.widget']);
        assert.equal(widget.headers.get('cache-control'), 'public, max-age=31536000, immutable');
        assert.equal(await widget.text(), file(entries['sdk.widget']!));
        const script = await fetch(`${url}/dashboard/assets/${entries['dashboard.script']}`);
        assert.equal(script.status, 200, entries['dashboard.script']);
        await script.arrayBuffer();
      }

      const unknown = await fetch(`${url}/widgets/widget.0123456789abcdef.js`);
      assert.equal(unknown.status, 404);
      assert.equal((await unknown.json()).error.type, 'not_found_error');
      assert.equal((await fetch(`${url}/dashboard/assets/main.0123456789abcdef.js`)).status, 404);

      const shell = await (await fetch(`${url}/dashboard/`)).text();
      assert.ok(
        shell.includes(current['dashboard.script']!) && shell.includes(current['dashboard.style']!),
        'the dashboard page names the current build',
      );

      // A new release built into the same directory while this process runs (an in-place deploy):
      // a page that loaded the new loader from a new process may ask this one for the new widget.
      const next = await build(out(), 'r4');
      await waitFor(
        'the running process serving the newer build',
        async () => (await fetch(`${url}/widgets/${next.entries['sdk.widget']}`)).status === 200,
        30_000,
      );
      assert.equal(await (await fetch(`${url}/widgets/embed.js`)).text(), file(next.entries['sdk.loader']!));
    } finally {
      server.kill('SIGTERM');
      await exited;
    }
  });
});
