import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cleanEnv, installPackage, packPackage } from '../scripts/packed-package.ts';
import { waitFor } from '../kit/testing/wait-for.ts';
import { mcpToolNames } from './support/mcp-tools.ts';

const run = promisify(execFile);

/**
 * The package as published: `npm pack`, installed from the tarball in an empty folder outside the
 * checkout, then used through `npx visualizer` as a new user would. A file the package needs but
 * `files` leaves out fails here, where a `file:` link to the checkout would still find it. One
 * pack and one install serve every check: the install compiles better-sqlite3 and takes minutes.
 * Every command `--help` lists is run from the installed package and its output checked; the last
 * case fails when one was not, so a new command needs its check here.
 */
describe('the packed package installed in an empty folder', { timeout: 900_000 }, () => {
  let temp: string;
  let app: string;
  let dataDir: string;
  let tarball: string;
  /** What `orgs create` printed; later checks use its organization. */
  let organizationId: string;
  let storeId: string;
  let apiKey: string;
  /** The commands `--help` lists, and the command lines this suite ran. */
  let listed: string[] = [];
  const ran: string[] = [];
  /** The service's settings, and nothing from this machine's environment that could point elsewhere. */
  const env = () => {
    const base = cleanEnv({ VISUALIZER_DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0' });
    for (const name of Object.keys(base))
      if (name.startsWith('VISUALIZER_') && name !== 'VISUALIZER_DATA_DIR') delete base[name];
    delete base.DATABASE_URL;
    return base;
  };
  const npx = (args: string[]) => {
    ran.push(args.join(' '));
    return run('npx', ['visualizer', ...args], { cwd: app, env: env() });
  };
  /** A command's `--json` output, parsed. */
  const npxJson = async <T = any>(args: string[]): Promise<T> =>
    JSON.parse((await npx([...args, '--json'])).stdout) as T;
  /** `file` run in the app's folder, in its own process group, its output kept; `command` is what it counts as run. */
  const spawnIn = (file: string, args: string[], command: string) => {
    ran.push(command);
    const child = spawn(file, args, { cwd: app, env: env(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let printed = '';
    child.stdout!.on('data', (chunk) => (printed += chunk));
    child.stderr!.on('data', (chunk) => (printed += chunk));
    return { child, printed: () => printed };
  };
  /** The installed bin itself (npx would stand between a signal and it). */
  const spawnBin = (args: string[]) => spawnIn(path.join(app, 'node_modules/.bin/visualizer'), args, args.join(' '));

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
    // Each command's usage line is indented two spaces, its summary six: the name is the leading words.
    listed = [...stdout.matchAll(/^ {2}([a-z]+(?: [a-z]+)*)(?= |$)/gm)].map((match) => match[1]!);
    for (const command of ['serve', 'worker', 'migrate', 'orgs create', 'keys create', 'listen', 'mcp', 'jobs dead'])
      assert.ok(listed.includes(command), `--help lists ${command}: ${stdout}`);
  });

  it('creates an organization on a fresh data directory with `orgs create --json`', async () => {
    const { stdout } = await npx(['orgs', 'create', '--name', 'Tarball shop', '--credits', '3', '--json']);
    const created = JSON.parse(stdout) as Record<string, unknown>;
    assert.match(String(created.organizationId), /^org_[0-9A-Za-z]{24}$/);
    assert.match(String(created.storeId), /^store_[0-9A-Za-z]{24}$/);
    assert.match(String(created.apiKey), /^visualizer_/);
    assert.match(String(created.conversionKey), /^viz_/);
    organizationId = String(created.organizationId);
    storeId = String(created.storeId);
    apiKey = String(created.apiKey);
  });

  it('finds nothing left to apply with `migrate --json` after `orgs create` migrated', async () => {
    const { stdout } = await npx(['migrate', '--json']);
    assert.deepEqual(JSON.parse(stdout), { applied: [] });
  });

  it('lists and updates organizations with `orgs list` and `orgs update`', async () => {
    const organizations = await npxJson<Array<Record<string, unknown>>>(['orgs', 'list']);
    const ours = organizations.find((organization) => organization.id === organizationId);
    assert.deepEqual(
      { name: ours?.name, credits: ours?.credits, renderRetentionDays: ours?.renderRetentionDays },
      { name: 'Tarball shop', credits: 3, renderRetentionDays: null },
    );
    const updated = await npxJson(['orgs', 'update', '--org', organizationId, '--render-retention-days', '30']);
    assert.deepEqual(updated, { organizationId, name: 'Tarball shop', renderRetentionDays: 30 });
  });

  it('adds and lists stores with `stores create` and `stores list`', async () => {
    const created = await npxJson(['stores', 'create', '--org', organizationId, '--name', 'Outlet']);
    assert.match(created.storeId, /^store_[0-9A-Za-z]{24}$/);
    assert.equal(created.name, 'Outlet');
    const stores = await npxJson<Array<{ id: string; name: string }>>(['stores', 'list', '--org', organizationId]);
    assert.deepEqual(stores.map((store) => store.id).sort(), [storeId, created.storeId].sort());
  });

  it('grants credits with `credits add`', async () => {
    const added = await npxJson(['credits', 'add', '--org', organizationId, '--amount', '5']);
    assert.deepEqual(added, { organizationId, added: 5, balance: 8 });
  });

  it('adds and lists widgets with `widgets create` and `widgets list`', async () => {
    const created = await npxJson([
      'widgets',
      'create',
      '--org',
      organizationId,
      '--store',
      storeId,
      '--mode',
      'virtual-try-on',
      '--origin',
      'https://shop.example',
    ]);
    assert.match(created.widgetId, /^wdg_[0-9A-Za-z]+$/);
    assert.deepEqual(created.allowedOrigins, ['https://shop.example']);
    const widgets = await npxJson<Array<{ id: string; storeId: string }>>(['widgets', 'list', '--org', organizationId]);
    assert.deepEqual(
      widgets.map((widget) => [widget.id, widget.storeId]),
      [[created.widgetId, storeId]],
    );
  });

  it('invites a dashboard user with `users invite`', async () => {
    const invitation = await npxJson([
      'users',
      'invite',
      '--org',
      organizationId,
      '--email',
      'viewer@shop.example',
      '--role',
      'viewer',
    ]);
    assert.equal(invitation.email, 'viewer@shop.example');
    assert.equal(invitation.role, 'viewer');
    assert.equal(invitation.organizationId, organizationId);
    assert.match(invitation.url, /^https?:\/\/.+/);
  });

  it('lists dead jobs with `jobs dead` and retries them with `jobs retry` (none on a fresh database)', async () => {
    assert.deepEqual(await npxJson(['jobs', 'dead']), []);
    assert.deepEqual(await npxJson(['jobs', 'retry', '--all']), { retried: [] });
    await assert.rejects(npx(['jobs', 'retry', '--id', 'job_missing']), (error: { code: number; stderr: string }) => {
      assert.equal(error.code, 2);
      assert.match(error.stderr, /No dead job job_missing/);
      return true;
    });
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
    let serverOutput: () => string;
    let baseUrl: string;
    /** A secret key of the organization, made by `keys create`. */
    let secretKey: string;
    const credits = async (key: string) =>
      fetch(`${baseUrl}/v1/credits`, { headers: { authorization: `Bearer ${key}` } });
    before(async () => {
      const started = spawnBin(['serve']);
      server = started.child;
      serverOutput = started.printed;
      await waitFor(
        'serve to print its address',
        () => {
          if (server.exitCode !== null) throw new Error(`serve exited with ${server.exitCode}:\n${serverOutput()}`);
          baseUrl = /^Visualizer listening on (http:\/\/\S+)/m.exec(serverOutput())?.[1] ?? '';
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
      const { key } = await npxJson<{ key: string }>(['keys', 'create', '--org', organizationId]);
      secretKey = key;
      const { child: listen, printed } = spawnIn(
        'npx',
        ['visualizer', 'listen', '--forward-to', 'http://127.0.0.1:9/hooks', '--api-key', key, '--base-url', baseUrl],
        'listen',
      );
      try {
        await waitFor(
          'listen to connect',
          () => /Webhook signing secret of this session: whsec_/.test(printed()) || listen.exitCode !== null,
          { timeoutMs: 60_000, intervalMs: 100 },
        );
        assert.match(printed(), /whsec_/, printed());
      } finally {
        if (listen.exitCode === null) process.kill(-listen.pid!, 'SIGTERM');
        await once(listen, 'exit');
      }
    });

    it('answers with the credits `credits add` granted', async () => {
      const response = await credits(secretKey);
      assert.equal(response.status, 200);
      assert.equal(((await response.json()) as { balance: number }).balance, 8);
    });

    it('lists keys with `keys list`, and refuses a key `keys revoke` revoked', async () => {
      assert.equal((await credits(apiKey)).status, 200);
      const keys = await npxJson<Array<{ id: string; prefix: string; status: string }>>([
        'keys',
        'list',
        '--org',
        organizationId,
      ]);
      const first = keys.find((key) => apiKey.startsWith(key.prefix.replace(/…$/, '')));
      assert.ok(first, `keys list shows the key orgs create made: ${JSON.stringify(keys)}`);
      assert.equal(first.status, 'active');
      const revoked = await npxJson(['keys', 'revoke', '--org', organizationId, '--key', first.id]);
      assert.equal(revoked.keyId, first.id);
      assert.ok(!Number.isNaN(Date.parse(revoked.revokedAt)), revoked.revokedAt);
      assert.equal((await credits(apiKey)).status, 401);
    });

    it('runs `visualizer worker` beside it, which stops on SIGTERM with exit code 0', async () => {
      const { child, printed } = spawnBin(['worker']);
      try {
        await waitFor(
          'the worker to start',
          () => {
            if (child.exitCode !== null) throw new Error(`worker exited with ${child.exitCode}:\n${printed()}`);
            return /^Visualizer worker running \d+ render jobs at a time/m.test(printed());
          },
          { timeoutMs: 120_000, intervalMs: 100 },
        );
      } finally {
        const exited = once(child, 'exit');
        process.kill(child.pid!, 'SIGTERM');
        const [code] = await exited;
        assert.equal(code, 0, printed());
      }
    });

    it('serves the MCP tools over stdio with `visualizer mcp`, forwarded to serve', async () => {
      ran.push('mcp');
      const client = new Client({ name: 'package-tarball', version: '1' });
      const { PATH = '', HOME = '' } = env();
      await client.connect(
        new StdioClientTransport({
          command: path.join(app, 'node_modules/.bin/visualizer'),
          args: ['mcp', '--base-url', baseUrl],
          cwd: app,
          env: { PATH, HOME, VISUALIZER_API_KEY: secretKey },
          stderr: 'pipe',
        }),
      );
      try {
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((tool) => tool.name).sort(), mcpToolNames);
        const result = (await client.callTool({ name: 'get_credit_balance', arguments: {} })) as CallToolResult;
        assert.notEqual(result.isError, true, JSON.stringify(result.content));
        const text = result.content.find((item) => item.type === 'text' && item.text.startsWith('{'));
        assert.ok(text && text.type === 'text', JSON.stringify(result.content));
        assert.equal((JSON.parse(text.text) as { balance: number }).balance, 8);
      } finally {
        await client.close();
      }
    });

    it('stops on SIGTERM with exit code 0', async () => {
      const exited = once(server, 'exit');
      process.kill(server.pid!, 'SIGTERM');
      const [code] = await exited;
      assert.equal(code, 0, serverOutput());
    });
  });

  it('ran every command `--help` lists, each with a check of its output', () => {
    assert.ok(listed.length > 0, 'the --help case ran first');
    const unchecked = listed.filter(
      (command) => !ran.some((line) => line === command || line.startsWith(`${command} `)),
    );
    assert.deepEqual(unchecked, [], 'commands with no check from the installed package: add one to this file');
  });
});
