import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import sharp from 'sharp';
import ts from 'typescript';
import { startWorkers } from '../../core/lifecycle.ts';
import { buildPackage } from '../../sdk/package/build.ts';
import { relaxedBrowserLimits } from '../support/browser-app.ts';
import { launchChromium, recordRequests, shopperPhoto, recordPageErrors } from '../support/browser.ts';
import { bearer, startTestApp, type TestApp } from '../support/app.ts';
import type { ProductData, VisualizerSdk } from '../../sdk/shared/types.ts';

/** What the bundled page puts on `window` for the test to drive. */
type ShopWindow = Window & {
  visualizer: VisualizerSdk;
  pending: VisualizerSdk;
  product(image: string): ProductData;
  refused: string;
  refusedConsent: string;
};

const packageDir = fileURLToPath(new URL('../../sdk/package/', import.meta.url));

/**
 * A shop's page written against the package, as a shop would write it. It is type-checked
 * against the package's declarations and bundled by esbuild, which resolves `@visualizer/sdk`
 * through `node_modules` (a link to sdk/package, as `npm install ../sdk/package` makes), so the
 * package's own `exports` and `dist/` are what is used. `misuse` is never called: it holds what
 * the declarations must refuse.
 */
const pageSource = `
import { createVisualizer, type ProductData, type VisualizerSdk } from '@visualizer/sdk';

const settings = JSON.parse(document.getElementById('settings')!.textContent!) as { baseUrl: string; storeId: string };
const visualizer: VisualizerSdk = createVisualizer(settings);
(window as unknown as { visualizer: VisualizerSdk }).visualizer = visualizer;

let refused = '';
try {
  createVisualizer({ baseUrl: 'visualizer.example', storeId: settings.storeId });
} catch (error) {
  refused = error instanceof TypeError ? error.message : 'not a TypeError';
}
(window as unknown as { refused: string }).refused = refused;

// A second SDK for the same store, started with consent pending: the shop's consent banner decides.
(window as unknown as { pending: VisualizerSdk }).pending = createVisualizer({ ...settings, consent: 'pending' });
let refusedConsent = '';
try {
  createVisualizer({ ...settings, consent: 'later' as 'pending' });
} catch (error) {
  refusedConsent = error instanceof TypeError ? error.message : 'not a TypeError';
}
(window as unknown as { refusedConsent: string }).refusedConsent = refusedConsent;

export function product(image: string): ProductData {
  return { productId: 'tee', productTitle: 'Tee', productImage: image, onAddToCart: () => ({ success: true }) };
}
(window as unknown as { product: typeof product }).product = product;

function misuse(sdk: VisualizerSdk) {
  // @ts-expect-error storeId is required
  createVisualizer({ baseUrl: 'https://visualizer.example' });
  // @ts-expect-error productTitle is required
  void sdk.open('wdg_1', { productId: 'tee', productImage: 'https://shop.example/tee.png' });
  // @ts-expect-error consent is 'pending' or 'granted'
  createVisualizer({ baseUrl: 'https://visualizer.example', storeId: 'store_1', consent: true });
  // @ts-expect-error consent(granted) takes a boolean
  sdk.consent('yes');
  // @ts-expect-error track's Promise resolves to a boolean
  const sent: Promise<string> = sdk.track('$conversion', { orderId: 'A-1' });
  return sent;
}
void misuse;
`;

let browser: Browser;
let app: TestApp;
/** The API's base: its public URL, which the widget's product image must be under. */
let base: string;
/** The shop: a loopback origin of its own, serving the bundled page. */
let shop: Server;
let shopOrigin: string;
let workDir: string;
let bundleDir: string;

/** Serves the bundled page and its chunks; `/` is the page, with the settings it reads. */
function startShop(settings: { baseUrl: string; storeId: string }): Promise<Server> {
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>Shop</title><link rel="icon" href="data:,">
<script type="application/json" id="settings">${JSON.stringify(settings)}</script>
<script type="module" src="/page.js"></script></head><body><h1>Shop</h1></body></html>`;
  const server = createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://shop').pathname;
    if (pathname === '/') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    if (/^\/[\w-]+\.js$/.test(pathname)) {
      try {
        return void res
          .writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' })
          .end(readFileSync(path.join(bundleDir, pathname)));
      } catch {
        // not a file of the bundle
      }
    }
    res.writeHead(404).end();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

before(async () => {
  browser = await launchChromium(); // first: a missing Chromium fails the suite at once
  await buildPackage();
  workDir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-sdk-package-'));
  mkdirSync(path.join(workDir, 'node_modules/@visualizer'), { recursive: true });
  symlinkSync(packageDir, path.join(workDir, 'node_modules/@visualizer/sdk'), 'dir');
  writeFileSync(path.join(workDir, 'package.json'), JSON.stringify({ name: 'shop', private: true, type: 'module' }));
  writeFileSync(path.join(workDir, 'page.ts'), pageSource);
  bundleDir = path.join(workDir, 'public');
  await build({
    entryPoints: [path.join(workDir, 'page.ts')],
    bundle: true,
    splitting: true,
    format: 'esm',
    outdir: bundleDir,
    logLevel: 'silent',
  });

  app = await startTestApp({ config: relaxedBrowserLimits });
  await startWorkers(app.container.cradle);
  base = app.container.cradle.config.publicUrl;
});
after(async () => {
  await browser?.close();
  await new Promise((resolve) => (shop ? shop.close(resolve) : resolve(undefined)));
  if (workDir) rmSync(workDir, { recursive: true, force: true });
  // Last: it throws when the service answered something its OpenAPI document does not promise.
  await app?.close();
});

describe('@visualizer/sdk, the npm package', () => {
  it('publishes dist/ alone: the ESM entry, its declarations and the widget chunk', async () => {
    // Scripts are ignored: prepack would rebuild what `before` has just built.
    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: packageDir,
    });
    const [packed] = JSON.parse(stdout) as Array<{ name: string; files: Array<{ path: string }> }>;
    assert.equal(packed!.name, '@visualizer/sdk');
    const files = packed!.files.map((file) => file.path).sort();
    assert.ok(files.includes('dist/index.js'), files.join(', '));
    assert.ok(files.includes('dist/index.d.ts'), files.join(', '));
    assert.ok(
      files.some((file) => /^dist\/widget-module-\w+\.js$/.test(file)),
      `the widget UI is a chunk of its own: ${files.join(', ')}`,
    );
    assert.deepEqual(
      files.filter((file) => !file.startsWith('dist/')),
      ['README.md', 'package.json'],
      'nothing but dist/, the README and the manifest',
    );
    assert.ok(!files.some((file) => file.endsWith('.ts') && !file.endsWith('.d.ts')), 'no TypeScript sources');

    const manifest = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
    assert.deepEqual(manifest.exports['.'], { types: './dist/index.d.ts', import: './dist/index.js' });
    assert.equal(manifest.dependencies, undefined, 'no runtime dependencies');
  });

  it("its declarations type a shop's code, and refuse misuse, under NodeNext and bundler resolution", () => {
    for (const resolution of ['NodeNext', 'Bundler'] as const) {
      const program = ts.createProgram([path.join(workDir, 'page.ts')], {
        target: ts.ScriptTarget.ES2022,
        module: resolution === 'NodeNext' ? ts.ModuleKind.NodeNext : ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind[resolution],
        lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
        types: [],
        strict: true,
        noEmit: true,
      });
      const problems = ts
        .getPreEmitDiagnostics(program)
        .map((problem) => ts.flattenDiagnosticMessageText(problem.messageText, '\n'));
      assert.deepEqual(problems, [], `${resolution}: ${problems.join('\n')}`);
      const resolved = program
        .getSourceFiles()
        .map((file) => file.fileName)
        .filter((name) => name.includes('sdk/package'));
      assert.ok(
        resolved.some((name) => name.endsWith('sdk/package/dist/index.d.ts')),
        `${resolution} resolves the package's types: ${resolved.join(', ')}`,
      );
    }
  });

  it('opens the widget and tracks a conversion from a bundled page on another origin; the widget UI is a lazy chunk of the bundle', async () => {
    const created = await app.tenants.createOrganization({ name: 'ESM shop', credits: 10 });
    const apiKey = created.apiKey.key;
    const storeId = created.store.id;
    shop = await startShop({ baseUrl: `${base}/`, storeId });
    shopOrigin = `http://127.0.0.1:${(shop.address() as { port: number }).port}`;
    assert.notEqual(new URL(base).origin, shopOrigin);

    const widgetResponse = await fetch(`${base}/v1/widgets`, {
      method: 'POST',
      headers: { ...bearer(apiKey), 'content-type': 'application/json' },
      body: JSON.stringify({ storeId, mode: 'virtual-try-on', allowedOrigins: [shopOrigin] }),
    });
    assert.equal(widgetResponse.status, 201, await widgetResponse.clone().text());
    const widgetId = (await widgetResponse.json()).id as string;
    const tee = await sharp({ create: { width: 300, height: 300, channels: 4, background: '#aa3311ff' } })
      .png()
      .toBuffer();
    await app.container.cradle.cdn.put('sdk-package/tee.png', tee, { contentType: 'image/png', visibility: 'public' });
    const productImage = `${base}/cdn/sdk-package/tee.png`;

    const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
    const errors = recordPageErrors(context);
    const requested: string[] = [];
    context.on('request', (request) => requested.push(request.url()));
    const collected = recordRequests(context, '/api/collect');
    try {
      const page = await context.newPage();
      await page.goto(`${shopOrigin}/`);
      await page.waitForFunction(() => !!(window as unknown as Partial<ShopWindow>).visualizer);
      assert.match(
        await page.evaluate(() => (window as unknown as ShopWindow).refused),
        /^createVisualizer\(\): baseUrl must be/,
      );
      const identity = await page.evaluate(() => (window as unknown as ShopWindow).visualizer.getIdentity());
      assert.match(identity.visitorId, /^[0-9a-f-]{36}$/);
      const chunks = () =>
        requested.filter((url) => url.startsWith(shopOrigin) && /\/widget-module-[\w-]+\.js$/.test(url));
      assert.deepEqual(chunks(), [], 'the widget UI is not loaded with the page');

      assert.equal(
        await page.evaluate(
          ([id, image]) =>
            (window as unknown as ShopWindow).visualizer.open(id!, (window as unknown as ShopWindow).product(image!)),
          [widgetId, productImage],
        ),
        true,
      );
      await page.locator('visualizer-widget [role="dialog"]').waitFor();
      assert.equal(chunks().length, 1, 'open() imported the widget chunk from the shop');
      assert.deepEqual(
        requested.filter((url) => new URL(url).pathname.startsWith('/widgets/')),
        [],
        'no script is loaded from the service (its embed.js or widget.js)',
      );

      await page.setInputFiles('visualizer-widget .photo-input', {
        name: 'me.jpg',
        mimeType: 'image/jpeg',
        buffer: await shopperPhoto(),
      });
      const result = page.locator('visualizer-widget .result-img');
      await result.waitFor({ state: 'visible', timeout: 30_000 });
      const generationId = (await result.getAttribute('data-generation-id'))!;
      const generation = await (
        await fetch(`${base}/v1/generations/${generationId}`, { headers: bearer(apiKey) })
      ).json();
      assert.equal(generation.status, 'complete');
      assert.equal(generation.products[0].productId, 'tee');
      await page.click('visualizer-widget .close');

      const order = {
        orderId: 'esm-1',
        totalCents: 2900,
        items: [{ productId: 'tee', quantity: 1, priceCents: 2900, totalCents: 2900 }],
      };
      assert.equal(
        await page.evaluate((props) => (window as unknown as ShopWindow).visualizer.track('$conversion', props), order),
        true,
      );
      assert.deepEqual(
        collected.map((entry) => entry.body),
        [{ type: '$conversion', props: { ...order, currency: 'USD', status: 'completed' }, storeId, ...identity }],
      );
      const listed = await (
        await fetch(`${base}/v1/conversions?storeId=${storeId}`, { headers: bearer(apiKey) })
      ).json();
      assert.equal(listed.data.length, 1);
      const [conversion] = listed.data;
      assert.equal(conversion.orderId, 'esm-1');
      assert.equal(conversion.visitorId, identity.visitorId);
      assert.equal(conversion.sessionId, identity.sessionId);
      assert.equal(conversion.totalCents, 2900);
      assert.equal(
        conversion.attribution?.generationId,
        generationId,
        'attributed to the visualization made through the ESM build',
      );

      const origins = new Set(requested.map((url) => new URL(url).origin));
      assert.deepEqual(
        [...origins].sort(),
        [new URL(base).origin, shopOrigin].sort(),
        'the page reached the shop and the service only',
      );
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
  it("with consent: 'pending' stores nothing until consent(true), and consent(false) removes what it stored", async () => {
    assert.ok(shop, 'the shop of the test before serves the page');
    const context = await browser.newContext();
    const errors = recordPageErrors(context);
    try {
      const page = await context.newPage();
      await page.goto(`${shopOrigin}/`);
      await page.waitForFunction(() => !!(window as unknown as Partial<ShopWindow>).pending);
      assert.match(
        await page.evaluate(() => (window as unknown as ShopWindow).refusedConsent),
        /^createVisualizer\(\): consent must be 'pending' or 'granted' \(got "later"\)/,
      );
      const storage = () =>
        page.evaluate(() => ({
          local: localStorage.length,
          session: sessionStorage.length,
          vid: localStorage.getItem('visualizer.vid'),
          sid: sessionStorage.getItem('visualizer.sid'),
        }));
      const identity = await page.evaluate(() => (window as unknown as ShopWindow).pending.getIdentity());
      assert.deepEqual(
        await storage(),
        { local: 0, session: 0, vid: null, sid: null },
        'nothing stored while consent is pending',
      );
      assert.equal(await page.evaluate(() => (window as unknown as ShopWindow).pending.consent(true)), true);
      assert.deepEqual(await storage(), { local: 1, session: 1, vid: identity.visitorId, sid: identity.sessionId });
      assert.equal(await page.evaluate(() => (window as unknown as ShopWindow).pending.consent(false)), true);
      assert.deepEqual(await storage(), { local: 0, session: 0, vid: null, sid: null });
      assert.deepEqual(
        await page.evaluate(() => (window as unknown as ShopWindow).pending.getIdentity()),
        identity,
        'it goes on in memory',
      );
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});
