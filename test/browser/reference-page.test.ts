import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { referencePageCsp } from '../../core/http/routes/reference-page.ts';
import { launchChromium, recordPageErrors, recordViolations } from '../support/browser.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

let browser: Browser;
let app: TestApp;
/** The service's public URL, where a reader opens the page. */
let base: string;

before(async () => {
  browser = await launchChromium(); // first: a missing Chromium fails the suite at once
  app = await startTestApp();
  base = app.container.cradle.config.publicUrl;
});
after(async () => {
  await browser?.close();
  await app?.close();
});

/**
 * Opens `url` in a fresh context that records console errors, page errors, CSP violations and
 * every request; a request to any origin but `origin` is refused, so none leaves the machine.
 */
async function openReference(url: string, origin: string) {
  const context = await browser.newContext();
  await context.addInitScript(recordViolations);
  const errors = recordPageErrors(context);
  const requested: string[] = [];
  context.on('request', (request) => requested.push(request.url()));
  const elsewhere: string[] = [];
  await context.route(
    (target) => target.protocol !== 'data:' && target.origin !== origin,
    (route) => {
      elsewhere.push(route.request().url());
      return route.abort('blockedbyclient');
    },
  );
  const page = await context.newPage();
  const response = await page.goto(url);
  assert.equal(response?.status(), 200);
  return { context, page, errors, requested, elsewhere };
}

const violations = (page: Page) => page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);

/** The operation block Swagger UI draws for `method path`, once the document has loaded. */
async function operation(page: Page, method: string, path: string) {
  const block = page.locator(`.opblock-${method}`).filter({
    has: page.locator('.opblock-summary-path', { hasText: new RegExp(`^${path.replace(/[{}]/g, '\\$&')}$`) }),
  });
  await block.first().waitFor();
  assert.equal(await block.count(), 1, `${method.toUpperCase()} ${path} is drawn once`);
  return block;
}

describe('the API reference page', () => {
  it('renders /openapi.json with Swagger UI served by the app, under a strict CSP, reaching no other origin', async () => {
    const document = await (await fetch(`${base}/openapi.json`)).json();
    const example = document.paths['/v1/generations'].post.requestBody.content['application/json'].example;
    assert.ok(example, 'the document has a request example to show');

    const { context, page, errors, requested, elsewhere } = await openReference(`${base}/docs`, new URL(base).origin);
    try {
      assert.equal(await page.title(), 'Visualizer API reference');
      const create = await operation(page, 'post', '/v1/generations');
      // The server selector names the address the document's relative server resolves to, not ".".
      assert.deepEqual(await page.locator('.servers select option').allTextContents(), [`${base} - This service`]);
      const read = await operation(page, 'get', '/v1/generations/{id}');
      assert.match(
        (await read.locator('.opblock-summary-description').textContent()) ?? '',
        /\w/,
        'GET /v1/generations/{id} has its summary',
      );

      await create.locator('.opblock-summary-control').first().click();
      const body = create
        .locator('.opblock-section-request-body .body-param__example, .opblock-section-request-body .highlight-code')
        .first();
      await body.waitFor();
      const shown = JSON.parse((await body.textContent())!);
      assert.deepEqual(shown, example, "the request example is the document's");

      assert.deepEqual(await violations(page), []);
      assert.deepEqual(errors, []);
      assert.deepEqual(elsewhere, [], "no request left the service's origin");
      assert.ok(requested.includes(`${base}/openapi.json`), 'the page read the document from the service');
      assert.ok(
        requested.some((url) => /\/docs\/assets\/[0-9a-f]{16}\/swagger-ui-bundle\.js$/.test(url)),
        'Swagger UI came from the service',
      );
    } finally {
      await context.close();
    }
  });

  it('sends the page without inline script or style, with its CSP; assets by version, cached for a year', async () => {
    const response = await fetch(`${base}/docs`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(response.headers.get('content-security-policy'), referencePageCsp);
    assert.match(referencePageCsp, /(^|; )default-src 'self'(;|$)/);
    assert.doesNotMatch(referencePageCsp, /unsafe-(inline|eval)/);
    const html = await response.text();
    assert.doesNotMatch(html, /<style|\sstyle=|\son\w+=|javascript:/i, 'no inline style or handler');
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    assert.equal(scripts.length, 2);
    for (const [, attributes, content] of scripts) {
      assert.match(
        attributes!,
        /\ssrc="docs\/assets\/[0-9a-f]{16}\/[\w.-]+\.js"/,
        'every script is a file, named relative to the page',
      );
      assert.equal(content, '');
    }

    const assets = [...html.matchAll(/(?:href|src)="(docs\/assets\/[0-9a-f]{16}\/[\w.-]+)"/g)].map(
      (match) => match[1]!,
    );
    assert.deepEqual(assets.map((asset) => asset.split('/').pop()).sort(), [
      'favicon-16x16.png',
      'favicon-32x32.png',
      'reference-page.css',
      'reference-page.js',
      'swagger-ui-bundle.js',
      'swagger-ui.css',
    ]);
    for (const asset of assets) {
      const file = await fetch(`${base}/${asset}`, { headers: { 'accept-encoding': 'identity' } });
      assert.equal(file.status, 200, asset);
      assert.equal(file.headers.get('cache-control'), 'public, max-age=31536000, immutable', asset);
      assert.equal(file.headers.get('x-content-type-options'), 'nosniff');
      const etag = file.headers.get('etag')!;
      assert.equal(
        (await fetch(`${base}/${asset}`, { headers: { 'accept-encoding': 'identity', 'if-none-match': etag } })).status,
        304,
        asset,
      );
      await file.arrayBuffer();
    }
    const bundle = assets.find((asset) => asset.endsWith('swagger-ui-bundle.js'))!;
    const zipped = await fetch(`${base}/${bundle}`, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(zipped.headers.get('content-encoding'), 'gzip');
    assert.equal(zipped.headers.get('content-type'), 'text/javascript; charset=utf-8');
    await zipped.arrayBuffer();

    const stale = await fetch(`${base}/docs/assets/0000000000000000/swagger-ui.css`);
    assert.equal(stale.status, 404, 'an asset of another version is not served');
    assert.equal((await stale.json()).error.code, 'route_not_found');
    const unknown = await fetch(`${base}/${bundle.replace('swagger-ui-bundle.js', 'index.html')}`);
    assert.equal(unknown.status, 404, "only the page's own assets are served");
    await unknown.arrayBuffer();

    const slash = await fetch(`${base}/docs/`, { redirect: 'manual' });
    assert.equal(slash.status, 301);
    assert.equal(new URL(slash.headers.get('location')!, `${base}/docs/`).href, `${base}/docs`);
  });

  it('works behind a reverse proxy under a path prefix: the page, its assets and the document keep the prefix', async () => {
    // A proxy that serves the app under `/visualizer/`, as a shop's server might, and answers nothing else.
    const prefix = '/visualizer';
    const target = new URL(app.url);
    const proxy: Server = createServer((incoming, outgoing) => {
      if (!incoming.url?.startsWith(`${prefix}/`)) return void outgoing.writeHead(404).end();
      const forwarded = request(
        // No pooled connections (agent: false): nothing of the proxy outlives the test.
        {
          host: target.hostname,
          port: target.port,
          method: incoming.method,
          path: incoming.url.slice(prefix.length),
          headers: incoming.headers,
          agent: false,
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      forwarded.on('error', () => outgoing.writeHead(502).end());
      incoming.pipe(forwarded);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
    const { context, page, errors, requested, elsewhere } = await openReference(`${origin}${prefix}/docs`, origin);
    try {
      await operation(page, 'post', '/v1/generations');
      assert.deepEqual(await page.locator('.servers select option').allTextContents(), [
        `${origin}${prefix} - This service`,
      ]);
      // "Try it out" calls the service under the prefix too: the document's server is relative to it.
      const health = await operation(page, 'get', '/healthz');
      await health.locator('.opblock-summary').first().click();
      await health.locator('.try-out__btn').click();
      const answered = page.waitForResponse((response) => new URL(response.url()).pathname.endsWith('/healthz'));
      await health.locator('.execute').click();
      assert.equal((await answered).url(), `${origin}${prefix}/healthz`);
      assert.deepEqual(await violations(page), []);
      assert.deepEqual(errors, []);
      assert.deepEqual(elsewhere, []);
      assert.ok(requested.includes(`${origin}${prefix}/openapi.json`), requested.join('\n'));
      assert.ok(
        requested.length > 2 && requested.every((url) => url.startsWith(`${origin}${prefix}/`)),
        `every request kept the prefix:\n${requested.join('\n')}`,
      );
    } finally {
      await context.close();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});
