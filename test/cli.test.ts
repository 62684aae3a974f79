import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { renderBannerLines } from '../cli/commands/serve.ts';
import type { RenderRoutes } from '../core/services/engine-routes.ts';
import { bin, cli } from './support/cli.ts';
import { waitFor } from './support/wait-for.ts';

/** Starts `visualizer serve` and resolves once it prints its URL. */
function serve(env: Record<string, string>): Promise<{
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}> {
  const child = spawn(bin, ['serve'], { env: { ...process.env, PORT: '0', ...env } });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match) resolve({ child, url: match[1]!, stdout: () => stdout, stderr: () => stderr, exited });
    });
    exited.then((code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
}

describe("serve's banner on renders", () => {
  const routes = (tryOn: string[], room: string[]) =>
    ({
      'virtual-try-on': tryOn.map((name) => ({ engine: { name } })),
      'room-visualizer': room.map((name) => ({ engine: { name } })),
    }) as unknown as RenderRoutes;

  it("names each mode's engines in the order they are tried", () => {
    assert.deepEqual(renderBannerLines(routes(['fashn', 'fal'], ['replicate'])), [
      'Renders: virtual-try-on by fashn, then fal; room-visualizer by replicate.',
    ]);
  });

  it('warns that the mock is a placeholder wherever it is routed', () => {
    assert.match(
      renderBannerLines(routes(['mock'], ['mock']))[0]!,
      /^Renderer: mock, a placeholder .* set VISUALIZER_RENDERER=gemini/,
    );
    assert.deepEqual(renderBannerLines(routes(['fashn', 'mock'], ['mock'])), [
      'Renders: virtual-try-on by fashn, then mock; room-visualizer by mock.',
      'Renderer mock is a placeholder: its results are the product pasted onto the photo, marked PREVIEW.',
    ]);
  });
});

describe('CLI', () => {
  let dataDir: string;
  let env: Record<string, string>;
  before(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-cli-'));
    env = { VISUALIZER_DATA_DIR: dataDir };
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('orgs create --json prints the four fields on a fresh data directory', async () => {
    const result = await cli(['orgs', 'create', '--name', 'acme', '--credits', '100', '--json'], env);
    assert.equal(result.code, 0, result.stderr);
    const created = JSON.parse(result.stdout);
    assert.match(created.organizationId, /^org_[0-9A-Za-z]{24}$/);
    assert.match(created.storeId, /^store_[0-9A-Za-z]{24}$/);
    assert.match(created.apiKey, /^visualizer_[0-9A-Za-z]{32,}$/);
    assert.match(created.conversionKey, /^viz_[0-9A-Za-z]{32,}$/);
  });

  it('manages stores, keys and credits', async () => {
    const { organizationId } = JSON.parse(
      (await cli(['orgs', 'create', '--name', 'keys', '--credits', '0', '--json'], env)).stdout,
    );
    const key = JSON.parse(
      (await cli(['keys', 'create', '--org', organizationId, '--kind', 'conversion', '--name', 'shop', '--json'], env))
        .stdout,
    );
    assert.match(key.key, /^viz_/);
    const listed = JSON.parse((await cli(['keys', 'list', '--org', organizationId, '--json'], env)).stdout);
    assert.equal(listed.length, 3);
    assert.ok(!JSON.stringify(listed).includes(key.key), 'listing never shows a key');
    const revoked = JSON.parse(
      (await cli(['keys', 'revoke', '--org', organizationId, '--key', key.keyId, '--json'], env)).stdout,
    );
    assert.match(revoked.revokedAt, /Z$/);
    const afterRevoke = JSON.parse((await cli(['keys', 'list', '--org', organizationId, '--json'], env)).stdout);
    assert.equal(afterRevoke.find((item: { id: string }) => item.id === key.keyId).status, 'revoked');

    const store = JSON.parse(
      (
        await cli(
          [
            'stores',
            'create',
            '--org',
            organizationId,
            '--name',
            'Outlet',
            '--attribution-window-days',
            '14',
            '--json',
          ],
          env,
        )
      ).stdout,
    );
    assert.equal(store.attributionWindowDays, 14);
    const stores = JSON.parse((await cli(['stores', 'list', '--org', organizationId, '--json'], env)).stdout);
    assert.equal(stores.length, 2);

    const credits = JSON.parse(
      (await cli(['credits', 'add', '--org', organizationId, '--amount', '25', '--json'], env)).stdout,
    );
    assert.equal(credits.balance, 25);
  });

  it('orgs update sets how long renders are kept, and orgs list shows it', async () => {
    const { organizationId } = JSON.parse(
      (await cli(['orgs', 'create', '--name', 'retention', '--credits', '0', '--json'], env)).stdout,
    );
    const listed = async () =>
      JSON.parse((await cli(['orgs', 'list', '--json'], env)).stdout).find(
        (org: { id: string }) => org.id === organizationId,
      );
    assert.equal((await listed()).renderRetentionDays, null, 'for ever by default');
    const updated = await cli(
      ['orgs', 'update', '--org', organizationId, '--render-retention-days', '30', '--json'],
      env,
    );
    assert.equal(updated.code, 0, updated.stderr);
    assert.deepEqual(JSON.parse(updated.stdout), { organizationId, name: 'retention', renderRetentionDays: 30 });
    assert.equal((await listed()).renderRetentionDays, 30);
    const text = await cli(['orgs', 'update', '--org', organizationId, '--render-retention-days', 'forever'], env);
    assert.match(text.stdout, /renders are kept for ever/);
    assert.equal((await listed()).renderRetentionDays, null);
    for (const bad of ['0', 'soon']) {
      const refused = await cli(['orgs', 'update', '--org', organizationId, '--render-retention-days', bad], env);
      assert.equal(refused.code, 2, `${bad}: ${refused.stderr}`);
      assert.match(refused.stderr, /--render-retention-days must be a whole number from 1 to 36500, or 'forever'/);
    }
    const unknown = await cli(
      ['orgs', 'update', '--org', 'org_000000000000000000000000', '--render-retention-days', '7'],
      env,
    );
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /No such organization/);
  });

  it('prints a clear error and exits non-zero on bad arguments', async () => {
    const cases: Array<[string[], RegExp, number]> = [
      [['orgs', 'create', '--credits', '5'], /--name is required/, 2],
      [['orgs', 'create', '--name', 'x', '--credits', 'lots'], /--credits must be a whole number/, 2],
      [['orgs', 'create', '--name', 'x', '--credits=-1'], /--credits must be a whole number of 0 or more/, 2],
      [['orgs', 'create', '--name', 'x', '--credits', '1', '--colour', 'red'], /Unknown option '--colour'/, 2],
      [['credits', 'add', '--org', 'org_missing', '--amount', '5'], /No such organization: 'org_missing'/, 1],
      [['credits', 'add', '--org', 'org_missing', '--amount', '0'], /--amount must be a whole number of 1 or more/, 2],
      [['keys', 'create', '--org', 'org_missing', '--kind', 'admin'], /--kind must be one of secret, conversion/, 2],
      [['keys', 'revoke', '--org', 'org_missing', '--key', 'key_missing'], /No such key/, 1],
      [['frobnicate'], /Unknown command 'frobnicate'/, 2],
      [[], /Usage: visualizer <command>/, 2],
    ];
    for (const [args, message, code] of cases) {
      const result = await cli(args, env);
      assert.equal(result.code, code, `${args.join(' ')} → ${result.stderr}${result.stdout}`);
      assert.match(result.stderr + result.stdout, message);
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace for a user mistake');
    }
  });

  it('stops on invalid configuration with a message naming the field', async () => {
    const result = await cli(['orgs', 'list'], { ...env, PORT: 'eighty' });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /port \(PORT\)/);
    const pg = await cli(['orgs', 'list'], { ...env, VISUALIZER_PERSISTENCE: 'postgres' });
    assert.equal(pg.code, 1);
    assert.match(pg.stderr, /plugins\.persistence: .*needs DATABASE_URL/);
    const allow = await cli(['orgs', 'list'], { ...env, VISUALIZER_OUTBOUND_ALLOW: 'hooks.test:https' });
    assert.equal(allow.code, 1);
    assert.match(
      allow.stderr,
      /outbound\.allow\.0 \(VISUALIZER_OUTBOUND_ALLOW\): "hooks\.test:https" has an invalid port "https"/,
    );
  });

  it('loads a third-party plugin named in a config file', async () => {
    const config = path.join(dataDir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        plugins: { clock: path.join(import.meta.dirname, 'fixtures', 'frozen-clock-plugin.ts') },
        pluginOptions: { 'frozen-clock': { at: '2031-05-06T07:08:09.010Z' } },
      }),
    );
    const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-cli-plugin-'));
    try {
      const options = { VISUALIZER_DATA_DIR: dir, VISUALIZER_CONFIG: config };
      assert.equal((await cli(['orgs', 'create', '--name', 'frozen', '--credits', '1'], options)).code, 0);
      const [org] = JSON.parse((await cli(['orgs', 'list', '--json'], options)).stdout);
      assert.equal(org.createdAt, '2031-05-06T07:08:09.010Z');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('migrate applies the schema once', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-cli-migrate-'));
    try {
      const first = JSON.parse((await cli(['migrate', '--json'], { VISUALIZER_DATA_DIR: dir })).stdout);
      assert.ok(first.applied.length >= 2);
      const second = JSON.parse((await cli(['migrate', '--json'], { VISUALIZER_DATA_DIR: dir })).stdout);
      assert.deepEqual(second.applied, []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('serve', () => {
    it('on a new database creates a development organization, prints its keys once, and serves', async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-serve-'));
      try {
        const first = await serve({ VISUALIZER_DATA_DIR: dir });
        const apiKey = /apiKey\s+(visualizer_\w+)/.exec(first.stdout())?.[1];
        assert.ok(apiKey, 'the development API key is printed');
        assert.match(first.stdout(), /conversionKey\s+viz_\w+/);

        assert.equal((await fetch(`${first.url}/healthz`)).status, 200);
        const unauthorized = await fetch(`${first.url}/v1/stores`);
        assert.equal(unauthorized.status, 401);
        assert.equal((await unauthorized.json()).error.type, 'authentication_error');
        assert.equal(
          (await fetch(`${first.url}/v1/stores`, { headers: { authorization: `Bearer ${apiKey}` } })).status,
          200,
        );

        first.child.kill('SIGTERM');
        assert.equal(await first.exited, 0, 'SIGTERM shuts down cleanly');

        const second = await serve({ VISUALIZER_DATA_DIR: dir });
        assert.doesNotMatch(second.stdout(), /apiKey/, 'keys are printed only when the database is new');
        const stillValid = await fetch(`${second.url}/v1/stores`, { headers: { authorization: `Bearer ${apiKey}` } });
        assert.equal(stillValid.status, 200, 'data survives a restart');
        second.child.kill('SIGTERM');
        assert.equal(await second.exited, 0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('lets an in-flight request finish on SIGTERM and then refuses new connections', async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-serve-'));
      try {
        const running = await serve({ VISUALIZER_DATA_DIR: dir });
        const apiKey = /apiKey\s+(visualizer_\w+)/.exec(running.stdout())![1]!;
        // A large body sent slowly keeps the request in flight while the signal arrives.
        const body = new ReadableStream({
          async start(controller) {
            controller.enqueue(new TextEncoder().encode('{"name": "slow'));
            await new Promise((resolve) => setTimeout(resolve, 300));
            running.child.kill('SIGTERM');
            await new Promise((resolve) => setTimeout(resolve, 300));
            controller.enqueue(new TextEncoder().encode(' store"}'));
            controller.close();
          },
        });
        const response = await fetch(`${running.url}/v1/stores`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body,
          duplex: 'half',
        } as RequestInit);
        assert.equal(response.status, 201);
        assert.equal((await response.json()).name, 'slow store');
        assert.equal(await running.exited, 0);
        await assert.rejects(fetch(`${running.url}/healthz`));
        // The answered request's kept-alive connection was closed once idle, not cut at the deadline.
        assert.doesNotMatch(running.stderr(), /cutting the connections still open/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    /** `serve` on HOST, answering on 127.0.0.1 whatever it listens on; its banner's demo line once printed. */
    async function serveDemo(host: string, extra: Record<string, string> = {}) {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-serve-demo-'));
      const running = await serve({ VISUALIZER_DATA_DIR: dir, HOST: host, ...extra });
      await waitFor('the demo line of the banner', () => /Demo shop: .*\n/.test(running.stdout()));
      const port = new URL(running.url).port;
      return {
        banner: /Demo shop: .*/.exec(running.stdout())![0],
        stdout: running.stdout,
        get: (pathname: string) => fetch(`http://127.0.0.1:${port}${pathname}`),
        async stop() {
          running.child.kill('SIGTERM');
          assert.equal(await running.exited, 0);
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }

    it('does not serve the demo shop on an address other machines reach, and says so in its banner', async () => {
      const open = await serveDemo('0.0.0.0');
      try {
        const response = await open.get('/demo');
        assert.equal(response.status, 404);
        assert.equal((await response.json()).error.code, 'route_not_found');
        assert.equal((await open.get('/demo/checkout')).status, 404);
        assert.match(
          open.banner,
          /^Demo shop: off, because HOST 0\.0\.0\.0 is not loopback alone .* To serve it anyway: VISUALIZER_DEMO=true, or "demo": \{ "enabled": true \} in the config file\.$/,
        );
      } finally {
        await open.stop();
      }
    });

    it('serves the demo shop on loopback alone, and anywhere when demo.enabled is true', async () => {
      const local = await serveDemo('127.0.0.1');
      try {
        assert.match(
          local.banner,
          /^Demo shop: http:\/\/localhost:\d+\/demo \(served because this server listens on 127\.0\.0\.1, loopback only\)$/,
        );
        assert.equal((await local.get('/demo')).status, 200);
      } finally {
        await local.stop();
      }
      const config = path.join(dataDir, 'demo-enabled.json');
      writeFileSync(config, JSON.stringify({ demo: { enabled: true } }));
      const askedFor = await serveDemo('0.0.0.0', { VISUALIZER_CONFIG: config });
      try {
        assert.match(
          askedFor.banner,
          /^Demo shop: http:\/\/localhost:\d+\/demo \(served because demo\.enabled is true\)$/,
        );
        assert.equal((await askedFor.get('/demo')).status, 200);
      } finally {
        await askedFor.stop();
      }
    });

    it('says in plain words what the workers do, where the demo’s orders show, and a runnable invite command', async () => {
      const local = await serveDemo('127.0.0.1');
      try {
        await waitFor('the sign-in line', () => /Dashboard sign-in: .*\n/.test(local.stdout()));
        const stdout = local.stdout();
        const org = /organizationId\s+(org_\w+)/.exec(stdout)?.[1];
        assert.ok(org, 'the development organization was created');
        assert.match(
          stdout,
          /^Visualizer listening on \S+ \(public URL \S+; renders up to \d+ generations? at once\)$/m,
        );
        assert.ok(
          stdout.includes(
            `Demo shop's try-ons and orders: on the dashboard of the organization Development (${org}), which the sign-in link below opens.`,
          ),
          stdout,
        );
        assert.match(
          stdout,
          new RegExp(
            `^Dashboard: http://localhost:\\d+/dashboard/ \\(for shops' teams\\)\\. To invite someone: npx visualizer users invite --org ${org} --email you@example\\.com --role admin$`,
            'm',
          ),
        );
      } finally {
        await local.stop();
      }
    });

    it('publishes the demo shop’s product images at start-up, before any page is opened', async () => {
      const local = await serveDemo('127.0.0.1');
      try {
        const image = await local.get('/cdn/demo/tee-classic-red.png');
        assert.equal(image.status, 200);
        assert.equal(image.headers.get('content-type'), 'image/png');
      } finally {
        await local.stop();
      }
    });

    it('says in its banner that the default renderer is a placeholder, and the line that switches to real renders', async () => {
      const mock = await serveDemo('127.0.0.1');
      try {
        const lines = mock.stdout().split('\n');
        const listening = lines.findIndex((line) => line.startsWith('Visualizer listening on'));
        assert.equal(
          lines[listening + 1],
          'Renderer: mock, a placeholder that pastes the product onto the photo and marks every result PREVIEW. For real renders, set VISUALIZER_RENDERER=gemini GEMINI_API_KEY=<your key>.',
        );
        // The reference page it names is there.
        const reference = lines.find((line) => line.startsWith('API reference: '));
        assert.match(
          reference ?? '',
          /^API reference: (http:\/\/localhost:\d+)\/docs \(OpenAPI document: \1\/openapi\.json\)$/,
        );
        const page = await mock.get('/docs');
        assert.equal(page.status, 200);
        assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
        // Images are signed with the development certificate made on the new data directory, and it says so.
        assert.match(
          lines.find((line) => line.startsWith('Content Credentials: ')) ?? '',
          /^Content Credentials: signed with a development certificate \(\/.+\/content-credentials\/development-signer\.pem\), which verifiers show as untrusted\. For production, configure your own: VISUALIZER_C2PA_CERTIFICATE_FILE and VISUALIZER_C2PA_KEY_FILE/,
        );
      } finally {
        await mock.stop();
      }
      // The switch it names works as written, and then nothing in the banner speaks of a placeholder.
      const gemini = await serveDemo('127.0.0.1', {
        VISUALIZER_RENDERER: 'gemini',
        GEMINI_API_KEY: 'test-key-not-used',
      });
      try {
        assert.doesNotMatch(gemini.stdout(), /Renderer|placeholder|PREVIEW/);
        assert.match(gemini.stdout(), /^Renders: virtual-try-on by gemini; room-visualizer by gemini\.$/m);
        assert.equal((await gemini.get('/healthz')).status, 200);
      } finally {
        await gemini.stop();
      }
    });
  });
});
