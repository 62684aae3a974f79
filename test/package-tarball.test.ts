import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { cleanEnv, installPackage, packPackage } from '../scripts/packed-package.ts';
import { waitFor } from '../kit/testing/wait-for.ts';

const run = promisify(execFile);

/**
 * The package as published: `npm pack`, installed from the tarball in an empty folder outside the
 * checkout, then used through `npx visualizer` as a new user would. A file the package needs but
 * `files` leaves out fails here, where a `file:` link to the checkout would still find it. One
 * pack and one install serve every check: the install compiles better-sqlite3 and takes minutes.
 */
describe('the packed package installed in an empty folder', { timeout: 900_000 }, () => {
  let temp: string;
  let app: string;
  let dataDir: string;
  let tarball: string;
  /** What `orgs create` printed; later checks use its organization. */
  let organizationId: string;
  /** The service's settings, and nothing from this machine's environment that could point elsewhere. */
  const env = () => {
    const base = cleanEnv({ VISUALIZER_DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0' });
    for (const name of Object.keys(base))
      if (name.startsWith('VISUALIZER_') && name !== 'VISUALIZER_DATA_DIR') delete base[name];
    delete base.DATABASE_URL;
    return base;
  };
  const npx = (args: string[]) => run('npx', ['visualizer', ...args], { cwd: app, env: env() });

  before(async () => {
    temp = mkdtempSync(path.join(os.tmpdir(), 'visualizer-package-'));
    app = path.join(temp, 'app');
    dataDir = path.join(temp, 'data');
    tarball = await packPackage(path.join(temp, 'pack'));
    await installPackage(app, [tarball], { createManifest: true });
  });
  after(() => rmSync(temp, { recursive: true, force: true }));

  it('is installed from the tarball, not linked to the checkout', () => {
    const manifest = JSON.parse(readFileSync(path.join(app, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    assert.match(manifest.dependencies.visualizer!, /^file:.*\.tgz$/);
    const installed = JSON.parse(readFileSync(path.join(app, 'node_modules/visualizer/package.json'), 'utf8')) as {
      name: string;
    };
    assert.equal(installed.name, 'visualizer');
  });

  it('prints the usage of every command with `npx visualizer --help`', async () => {
    const { stdout } = await npx(['--help']);
    for (const command of [
      'serve',
      'worker',
      'migrate',
      'orgs create',
      'keys create',
      'users invite',
      'listen',
      'jobs dead',
    ]) {
      assert.match(stdout, new RegExp(`^  ${command}\\b`, 'm'), `--help lists ${command}`);
    }
  });

  it('creates an organization on a fresh data directory with `orgs create --json`', async () => {
    const { stdout } = await npx(['orgs', 'create', '--name', 'Tarball shop', '--credits', '3', '--json']);
    const created = JSON.parse(stdout) as Record<string, unknown>;
    assert.match(String(created.organizationId), /^org_[0-9A-Za-z]{24}$/);
    assert.match(String(created.storeId), /^store_[0-9A-Za-z]{24}$/);
    assert.match(String(created.apiKey), /^visualizer_/);
    assert.match(String(created.conversionKey), /^viz_/);
    organizationId = String(created.organizationId);
  });

  it('finds nothing left to apply with `migrate --json` after `orgs create` migrated', async () => {
    const { stdout } = await npx(['migrate', '--json']);
    assert.deepEqual(JSON.parse(stdout), { applied: [] });
  });

  it('loads `visualizer/plugin` and `visualizer/testing` in a plugin author’s package', async () => {
    const script = `const plugin = await import('visualizer/plugin'); const testing = await import('visualizer/testing');
      console.log(JSON.stringify([typeof plugin.definePlugin, typeof plugin.vendorImage, typeof testing.renderEngineContract, typeof testing.pluginContext]));`;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: app,
      env: env(),
    });
    assert.deepEqual(JSON.parse(stdout), ['function', 'function', 'function', 'function']);
  });

  describe('`visualizer serve` from the installed bin', () => {
    let server: ChildProcess;
    let output = '';
    let baseUrl: string;
    before(async () => {
      // The installed bin itself (npx would stand between the signal and the server); its own
      // process group, so cleanup reaches anything it started.
      server = spawn(path.join(app, 'node_modules/.bin/visualizer'), ['serve'], {
        cwd: app,
        env: env(),
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      server.stdout!.on('data', (chunk) => (output += chunk));
      server.stderr!.on('data', (chunk) => (output += chunk));
      await waitFor(
        'serve to print its address',
        () => {
          if (server.exitCode !== null) throw new Error(`serve exited with ${server.exitCode}:\n${output}`);
          baseUrl = /^Visualizer listening on (http:\/\/\S+)/m.exec(output)?.[1] ?? '';
          return baseUrl !== '';
        },
        { timeoutMs: 120_000, intervalMs: 100 },
      );
    });
    after(async () => {
      if (server.exitCode === null && server.signalCode === null) {
        process.kill(-server.pid!, 'SIGKILL');
        await once(server, 'exit');
      }
    });

    it('answers /healthz', async () => {
      const response = await fetch(`${baseUrl}/healthz`);
      assert.equal(response.status, 200, await response.text());
    });

    it('serves the SDK loader and widget, built from the packed sources', async () => {
      const loader = await fetch(`${baseUrl}/widgets/embed.js`);
      assert.equal(loader.status, 200);
      const widgetPath = /\/widgets\/widget\.[0-9a-f]+\.js/.exec(await loader.text())?.[0];
      assert.ok(widgetPath, 'the loader names its widget bundle');
      const widget = await fetch(`${baseUrl}${widgetPath}`);
      assert.equal(widget.status, 200);
      assert.match(widget.headers.get('content-type') ?? '', /javascript/);
      assert.ok((await widget.text()).length > 1000, 'the widget bundle has content');
    });

    it('serves the dashboard with its script and style sheet', async () => {
      const page = await fetch(`${baseUrl}/dashboard/`);
      assert.equal(page.status, 200);
      const html = await page.text();
      const assets = [...html.matchAll(/(?:src|href)="(assets\/[^"]+\.(?:js|css))"/g)].map((match) => match[1]!);
      assert.equal(assets.length, 2, `the page names a script and a style sheet: ${html}`);
      for (const asset of assets) assert.equal((await fetch(`${baseUrl}/dashboard/${asset}`)).status, 200, asset);
    });

    it('streams events to `npx visualizer listen`, whose API client comes with the package', async () => {
      const { stdout } = await npx(['keys', 'create', '--org', organizationId, '--json']);
      const { key } = JSON.parse(stdout) as { key: string };
      const listen = spawn(
        'npx',
        ['visualizer', 'listen', '--forward-to', 'http://127.0.0.1:9/hooks', '--api-key', key, '--base-url', baseUrl],
        {
          cwd: app,
          env: env(),
          detached: true,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let printed = '';
      listen.stdout!.on('data', (chunk) => (printed += chunk));
      listen.stderr!.on('data', (chunk) => (printed += chunk));
      try {
        await waitFor(
          'listen to connect',
          () => /Webhook signing secret of this session: whsec_/.test(printed) || listen.exitCode !== null,
          { timeoutMs: 60_000, intervalMs: 100 },
        );
        assert.match(printed, /whsec_/, printed);
      } finally {
        if (listen.exitCode === null) process.kill(-listen.pid!, 'SIGTERM');
        await once(listen, 'exit');
      }
    });

    it('stops on SIGTERM with exit code 0', async () => {
      const exited = once(server, 'exit');
      process.kill(server.pid!, 'SIGTERM');
      const [code] = await exited;
      assert.equal(code, 0, output);
    });
  });
});
