import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { DemoState } from '../../demo/setup.ts';
import type { Identity } from '../../sdk/shared/types.ts';
import { stubSnippet } from '../../sdk/snippet.ts';
import { relaxedBrowserLimits } from '../support/browser-app.ts';
import { launchChromium, recordRequests, recordPageErrors } from '../support/browser.ts';
import { startGenerationApp, type GenerationApp } from '../support/generation-app.ts';

let browser: Browser;
let g: GenerationApp;
/** Where pages are served from (the app's public URL, as the embed tag names it). */
let base: string;
let demo: DemoState;

before(async () => {
  browser = await launchChromium(); // first: a missing Chromium fails the suite at once
  g = await startGenerationApp({ config: relaxedBrowserLimits });
  base = g.app.container.cradle.config.publicUrl;
  const shop = await fetch(`${base}/demo`);
  assert.equal(shop.status, 200, 'the demo shop creates its organization, store and widget on first request');
  demo = JSON.parse(readFileSync(path.join(g.app.container.cradle.config.dataDir, 'demo.json'), 'utf8'));
});
after(async () => {
  await browser?.close();
  await g?.close();
});

const embedTag = () => `<script src="${base}/widgets/embed.js" data-store-id="${demo.storeId}"></script>`;

/**
 * A context whose `{base}/sdk-test/<name>` pages are the given HTML (served by Playwright at the
 * app's origin), with every console error and page error recorded.
 */
async function sdkContext(pages: Record<string, string>, options: { initScript?: string } = {}) {
  const context = await browser.newContext();
  if (options.initScript) await context.addInitScript(options.initScript);
  await context.route(`${base}/sdk-test/**`, (route) => {
    const name = new URL(route.request().url()).pathname.slice('/sdk-test/'.length);
    return route.fulfill({
      status: 200,
      contentType: 'text/html; charset=utf-8',
      body: `<!doctype html><html><head><meta charset="utf-8">${pages[name] ?? ''}</head><body></body></html>`,
    });
  });
  const errors = recordPageErrors(context);
  const collected = recordRequests(context, '/api/collect');
  const preflights: string[] = [];
  context.on('request', (request) => {
    if (request.method() === 'OPTIONS') preflights.push(request.url());
  });
  return { context, errors, collected, preflights };
}

async function openPage(context: BrowserContext, url: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForFunction(
    () => !!(window.Visualizer && (window.Visualizer as unknown as { __sdk?: boolean }).__sdk),
  );
  return page;
}

const identityOf = (page: Page) => page.evaluate(() => window.Visualizer.getIdentity());

async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('embed.js serving', () => {
  it('serves the loader with ETag, revalidation, gzip and a short cache; the widget by content hash for a year', async () => {
    const plain = await fetch(`${base}/widgets/embed.js`, { headers: { 'accept-encoding': 'identity' } });
    assert.equal(plain.status, 200);
    assert.equal(plain.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(plain.headers.get('cache-control'), 'public, max-age=300');
    assert.equal(plain.headers.get('access-control-allow-origin'), '*');
    const etag = plain.headers.get('etag')!;
    assert.match(etag, /^"[\w-]+"$/, 'a strong validator');
    const loader = await plain.text();

    const revalidated = await fetch(`${base}/widgets/embed.js`, {
      headers: { 'accept-encoding': 'identity', 'if-none-match': etag },
    });
    assert.equal(revalidated.status, 304);
    assert.equal(await revalidated.text(), '');

    // Node's fetch decodes gzip itself; read the raw size through the content-length header.
    const zipped = await fetch(`${base}/widgets/embed.js`, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(zipped.headers.get('content-encoding'), 'gzip');
    assert.notEqual(zipped.headers.get('etag'), etag, 'each encoding has its own validator');
    const gzipBytes = Number(zipped.headers.get('content-length'));
    assert.equal(await zipped.text(), loader);
    assert.ok(gzipBytes < 6 * 1024, `the loader is ${gzipBytes} bytes gzipped; the budget is 6 KB`);

    const widgetPath = /\/widgets\/widget\.[0-9a-f]{16}\.js/.exec(loader)?.[0];
    assert.ok(widgetPath, 'the loader names the widget bundle by its content hash');
    const widget = await fetch(`${base}${widgetPath}`, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(widget.status, 200);
    assert.equal(widget.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.match(await widget.text(), /__visualizerWidget/);
    const stale = await fetch(`${base}/widgets/widget.0000000000000000.js`);
    assert.equal(stale.status, 404);
    assert.equal((await stale.json()).error.code, 'route_not_found');
  });
});

describe('browser identity', () => {
  it('keeps the visitor id across reloads and tabs; each tab has its own session id', async () => {
    const { context, errors } = await sdkContext({ page: embedTag() });
    try {
      const page = await openPage(context, `${base}/sdk-test/page`);
      const first = await identityOf(page);
      assert.match(first.visitorId, /^[0-9a-f-]{36}$/);
      assert.match(first.sessionId, /^[0-9a-f-]{36}$/);
      assert.notEqual(first.visitorId, first.sessionId);
      assert.deepEqual(
        await page.evaluate(() => [localStorage.getItem('visualizer.vid'), sessionStorage.getItem('visualizer.sid')]),
        [first.visitorId, first.sessionId],
      );

      await page.reload();
      await page.waitForFunction(() => !!window.Visualizer?.getIdentity);
      assert.deepEqual(await identityOf(page), first, 'a reload keeps both');

      const tab = await openPage(context, `${base}/sdk-test/page`);
      const other = await identityOf(tab);
      assert.equal(other.visitorId, first.visitorId, 'a new tab is the same visitor');
      assert.notEqual(other.sessionId, first.sessionId, 'a new tab is a new session');

      const stranger = await sdkContext({ page: embedTag() });
      const strangerPage = await openPage(stranger.context, `${base}/sdk-test/page`);
      assert.notEqual(
        (await identityOf(strangerPage)).visitorId,
        first.visitorId,
        'another browser is another visitor',
      );
      await stranger.context.close();
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  it('works with storage blocked: in-memory ids, and track still sends', async () => {
    const blockStorage = `
      for (const name of ['localStorage', 'sessionStorage']) {
        Object.defineProperty(window, name, { configurable: true, get() { throw new DOMException('The operation is insecure.', 'SecurityError'); } });
      }`;
    const { context, errors, collected } = await sdkContext({ page: embedTag() }, { initScript: blockStorage });
    try {
      const page = await openPage(context, `${base}/sdk-test/page`);
      assert.equal(
        await page.evaluate(() => {
          try {
            void window.localStorage;
            return 'readable';
          } catch {
            return 'blocked';
          }
        }),
        'blocked',
      );
      const identity = await identityOf(page);
      assert.match(identity.visitorId, /^[0-9a-f-]{36}$/);
      assert.match(identity.sessionId, /^[0-9a-f-]{36}$/);
      assert.deepEqual(await identityOf(page), identity, 'stable within the page');

      const sent = await page.evaluate(() =>
        window.Visualizer.track('$conversion', { orderId: 'blocked-storage-1', totalCents: 500 }),
      );
      assert.equal(sent, true);
      assert.equal(collected.length, 1);
      assert.deepEqual(collected[0]!.body, {
        type: '$conversion',
        props: { orderId: 'blocked-storage-1', totalCents: 500, currency: 'USD', status: 'completed', items: [] },
        storeId: demo.storeId,
        visitorId: identity.visitorId,
        sessionId: identity.sessionId,
      });
      assert.equal(
        await page.evaluate(() => window.Visualizer.track('$conversion', { orderId: 'blocked-storage-1' })),
        true,
      );
      assert.equal(collected.length, 1, 'deduplicated in memory when sessionStorage is blocked');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});

describe('track', () => {
  it('sends a conversion once per browser session: refreshing the confirmation page does not count it twice', async () => {
    const orderId = `refresh-${Date.now()}`;
    // A shop's confirmation page: it reports the order on every view.
    const confirmation = `${embedTag()}<script>Visualizer.track('$conversion', { orderId: '${orderId}', totalCents: 1500 }).then(function (ok) { window.results = { tracked: ok }; });</script>`;
    const { context, errors, collected, preflights } = await sdkContext({ confirmation });
    try {
      const page = await context.newPage();
      const tracked = () => page.waitForFunction(() => window.results?.tracked === true);
      await page.goto(`${base}/sdk-test/confirmation`);
      await tracked();
      await page.reload();
      await tracked();
      await page.reload();
      await tracked();
      const conversions = collected.filter((entry) => (entry.body as { type: string }).type === '$conversion');
      assert.equal(conversions.length, 1, 'one request for three views');
      assert.equal((conversions[0]!.body as { props: { orderId: string } }).props.orderId, orderId);
      assert.match(conversions[0]!.contentType ?? '', /^text\/plain/);
      assert.deepEqual(preflights, [], 'text/plain: no CORS preflight');

      const listed = await (await g.api.get(demo.apiKey, `/v1/conversions?storeId=${demo.storeId}&limit=100`)).json();
      const matching = listed.data.filter((conversion: { orderId: string }) => conversion.orderId === orderId);
      assert.equal(matching.length, 1);
      assert.equal(matching[0].visitorId, (await identityOf(page)).visitorId);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  it('applies the defaults and sends as text/plain with keepalive', async () => {
    const { context, collected, errors } = await sdkContext({ page: embedTag() });
    try {
      const page = await openPage(context, `${base}/sdk-test/page`);
      const items = [{ productId: 'tee-classic', quantity: 2, priceCents: 2900, totalCents: 5800 }];
      assert.equal(
        await page.evaluate(
          (list) =>
            window.Visualizer.track('$conversion', {
              orderId: 'full-1',
              totalCents: 5800,
              currency: 'EUR',
              status: 'pending',
              items: list,
            }),
          items,
        ),
        true,
      );
      assert.equal(
        await page.evaluate(() => window.Visualizer.track('$conversion', { orderId: 1234 })),
        true,
        'a numeric order id is sent as text',
      );
      assert.deepEqual(
        collected.map((entry) => (entry.body as { props: unknown }).props),
        [
          { orderId: 'full-1', totalCents: 5800, currency: 'EUR', status: 'pending', items },
          { orderId: '1234', totalCents: 0, currency: 'USD', status: 'completed', items: [] },
        ],
      );
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  it('reports invalid props on the console, never throws, never sends', async () => {
    const { context, collected, errors } = await sdkContext({ page: embedTag() });
    try {
      const page = await openPage(context, `${base}/sdk-test/page`);
      const outcome = await page.evaluate(async () => {
        const attempts: Array<[string, unknown]> = [
          ['$conversion', undefined],
          ['$conversion', {}],
          ['$conversion', { orderId: '' }],
          ['$conversion', { orderId: 'x'.repeat(201) }],
          ['$conversion', { orderId: 'o', totalCents: 12.5 }],
          ['$conversion', { orderId: 'o', totalCents: -1 }],
          ['$conversion', { orderId: 'o', currency: 'usd' }],
          ['$conversion', { orderId: 'o', status: 'shipped' }],
          ['$conversion', { orderId: 'o', items: 'three shirts' }],
          ['$conversion', { orderId: 'o', items: [{ productId: 'a', quantity: 2, priceCents: 100, totalCents: 150 }] }],
          ['$conversion', { orderId: 'o', items: [{ quantity: 1, priceCents: 100, totalCents: 100 }] }],
          ['purchase', { orderId: 'o' }],
        ];
        const results: unknown[] = [];
        for (const [event, props] of attempts) {
          try {
            results.push(await window.Visualizer.track(event, props));
          } catch (error) {
            results.push(`threw ${error}`);
          }
        }
        return results;
      });
      assert.deepEqual(outcome, Array(12).fill(false), 'each call resolves to false');
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(collected.length, 0, 'nothing was sent');
      assert.equal(errors.length, 12, errors.join('\n'));
      assert.ok(errors.every((message) => message.startsWith('[Visualizer] ')));
      const expected = [
        'props must be an object',
        'props.orderId is required',
        'props.orderId is required',
        'props.orderId is required',
        'props.totalCents',
        'props.totalCents',
        'props.currency',
        'props.status',
        'props.items must be an array',
        'props.items[0].totalCents must equal priceCents × quantity (100 × 2 = 200, got 150)',
        'props.items[0].productId is required',
        'unknown event "purchase"',
      ];
      expected.forEach((fragment, index) => {
        assert.ok(errors[index]!.includes(fragment), `${errors[index]} names ${fragment}`);
      });
    } finally {
      await context.close();
    }
  });
});

describe('stub snippet', () => {
  it('queues calls made before the loader arrives and delivers them in order', async () => {
    const page = `<script>${stubSnippet}</script>
<script>
  window.results = {};
  Visualizer.track('$conversion', { orderId: 'stub-1', totalCents: 1200 }).then(function (ok) { results.track = ok; });
  Visualizer.ready(function (sdk) { results.identity = sdk.getIdentity(); });
  Visualizer.identify('user-42', { plan: 'gold' }).then(function (ok) { results.identify = ok; });
  results.queuedBeforeLoad = Visualizer.q.length;
  results.loadedBeforeTimer = !!Visualizer.getIdentity;
  setTimeout(function () {
    var script = document.createElement('script');
    script.async = true;
    script.src = '${base}/widgets/embed.js';
    script.setAttribute('data-store-id', '${demo.storeId}');
    document.head.appendChild(script);
  }, 400);
</script>`;
    const { context, collected, errors } = await sdkContext({ page });
    try {
      const tab = await context.newPage();
      await tab.goto(`${base}/sdk-test/page`);
      await tab.waitForFunction(
        () =>
          window.results.track !== undefined &&
          window.results.identify !== undefined &&
          window.results.identity !== undefined,
      );
      const results = await tab.evaluate(() => window.results);
      assert.equal(results.queuedBeforeLoad, 3);
      assert.equal(results.loadedBeforeTimer, false, 'the calls were made before the loader existed');
      assert.equal(results.track, true);
      assert.equal(results.identify, true);
      const identity = results.identity as Identity;
      assert.deepEqual(await identityOf(tab), identity);
      await eventually(() => collected.length === 2, 'two collect requests');
      assert.deepEqual(
        collected.map((entry) => entry.body),
        [
          {
            type: '$conversion',
            props: { orderId: 'stub-1', totalCents: 1200, currency: 'USD', status: 'completed', items: [] },
            storeId: demo.storeId,
            ...identity,
          },
          { type: '$identify', userId: 'user-42', traits: { plan: 'gold' }, storeId: demo.storeId, ...identity },
        ],
      );

      // identify is sent once per session for the same user and traits.
      assert.equal(await tab.evaluate(() => window.Visualizer.identify('user-42', { plan: 'gold' })), true);
      assert.equal(collected.length, 2);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});

/** Records every write to web storage in `window.__storageWrites` (a reload starts a new list). */
const recordStorageWrites = `
window.__storageWrites = [];
for (const method of ['setItem', 'removeItem', 'clear']) {
  const original = Storage.prototype[method];
  Storage.prototype[method] = function (...args) {
    window.__storageWrites.push([this === window.localStorage ? 'local' : 'session', method, ...args]);
    return original.apply(this, args);
  };
}`;

/** Everything in the page's localStorage and sessionStorage. */
const storageOf = (page: Page) =>
  page.evaluate(
    () =>
      // One expression: tsx would name a helper function with a `__name` call the page does not have.
      Object.fromEntries(
        (['local', 'session'] as const).map((kind) => {
          const storage = kind === 'local' ? localStorage : sessionStorage;
          return [
            kind,
            Object.fromEntries(
              Array.from({ length: storage.length }, (_, i) => storage.key(i)!).map((key) => [
                key,
                storage.getItem(key)!,
              ]),
            ),
          ];
        }),
      ) as { local: Record<string, string>; session: Record<string, string> },
  );

const storageWritesOf = (page: Page) =>
  page.evaluate(() => (window as unknown as { __storageWrites: unknown[][] }).__storageWrites);

describe('consent', () => {
  const pendingTag = (value = 'pending') =>
    `<script src="${base}/widgets/embed.js" data-store-id="${demo.storeId}" data-consent="${value}"></script>`;

  it('with data-consent="pending" nothing is stored until consent(true), which keeps the ids; consent(false) removes them and the page goes on in memory', async () => {
    const { context, errors, collected } = await sdkContext(
      { page: pendingTag() },
      { initScript: recordStorageWrites },
    );
    try {
      const page = await openPage(context, `${base}/sdk-test/page`);
      const identity = await identityOf(page);
      assert.match(identity.visitorId, /^[0-9a-f-]{36}$/);
      assert.equal(
        await page.evaluate(() => window.Visualizer.track('$conversion', { orderId: 'consent-1', totalCents: 100 })),
        true,
      );
      assert.equal(await page.evaluate(() => window.Visualizer.identify('user-consent', { plan: 'gold' })), true);
      assert.equal(
        await page.evaluate(() => window.Visualizer.track('$conversion', { orderId: 'consent-1', totalCents: 100 })),
        true,
      );
      assert.equal(collected.length, 2, 'the conversion is sent once: remembered in memory');
      assert.ok(
        collected.every(
          (entry) =>
            (entry.body as Identity).visitorId === identity.visitorId &&
            (entry.body as Identity).sessionId === identity.sessionId,
        ),
      );
      assert.deepEqual(await identityOf(page), identity, 'stable within the page');
      assert.deepEqual(await storageOf(page), { local: {}, session: {} }, 'nothing stored while consent is pending');
      assert.deepEqual(await storageWritesOf(page), [], 'not even a probe was written');

      assert.equal(await page.evaluate(() => window.Visualizer.consent(true)), true);
      const stored = await storageOf(page);
      assert.deepEqual(stored.local, { 'visualizer.vid': identity.visitorId }, 'the visitor id of the page is kept');
      assert.equal(stored.session['visualizer.sid'], identity.sessionId);
      assert.deepEqual(JSON.parse(stored.session['visualizer.sent']!), [`${demo.storeId}:consent-1`]);
      assert.deepEqual(JSON.parse(stored.session['visualizer.uid']!), [demo.storeId, 'user-consent', { plan: 'gold' }]);
      assert.deepEqual(await identityOf(page), identity);
      assert.equal(
        await page.evaluate(() => window.Visualizer.track('$conversion', { orderId: 'consent-2', totalCents: 100 })),
        true,
      );
      assert.deepEqual(
        JSON.parse((await storageOf(page)).session['visualizer.sent']!),
        [`${demo.storeId}:consent-1`, `${demo.storeId}:consent-2`],
        'stored from then on',
      );

      // The next page starts pending again: what is stored is neither read nor written until consent.
      await page.reload();
      await page.waitForFunction(() => !!(window.Visualizer as unknown as { __sdk?: boolean }).__sdk);
      const unconsented = await identityOf(page);
      assert.notEqual(unconsented.visitorId, identity.visitorId, 'the stored id is not read while consent is pending');
      assert.deepEqual(await storageWritesOf(page), []);
      assert.equal(await page.evaluate(() => window.Visualizer.consent(true)), true);
      assert.deepEqual(
        await identityOf(page),
        identity,
        "once consent is given, the ids it stored before are the shopper's again",
      );
      assert.equal((await storageOf(page)).local['visualizer.vid'], identity.visitorId);

      // Withdrawn: every key of the SDK is removed, the shop's own are left, and the SDK goes on in memory.
      await page.evaluate(() => localStorage.setItem('shop.cart', '[]'));
      assert.equal(await page.evaluate(() => window.Visualizer.consent(false)), true);
      assert.deepEqual(await storageOf(page), { local: { 'shop.cart': '[]' }, session: {} });
      assert.deepEqual(await identityOf(page), identity, 'the page keeps its ids, in memory');
      const before = collected.length;
      assert.equal(
        await page.evaluate(() => window.Visualizer.track('$conversion', { orderId: 'consent-2', totalCents: 100 })),
        true,
      );
      assert.equal(collected.length, before, 'what was sent is still remembered, in memory');
      assert.equal(
        await page.evaluate(() => window.Visualizer.track('$conversion', { orderId: 'consent-3', totalCents: 100 })),
        true,
      );
      assert.equal(collected.length, before + 1);
      assert.deepEqual((collected.at(-1)!.body as { visitorId: string }).visitorId, identity.visitorId);
      assert.deepEqual(
        await storageOf(page),
        { local: { 'shop.cart': '[]' }, session: {} },
        'nothing stored after consent(false)',
      );
      const writes = (await storageWritesOf(page)).filter(
        ([, method, key]) => method === 'setItem' && String(key).startsWith('visualizer.'),
      );
      assert.deepEqual(
        writes.map(([, , key]) => key).sort(),
        ['visualizer.probe', 'visualizer.probe'],
        'after the reload only consent(true) opened the storages (a probe each), and wrote nothing it had not stored before',
      );

      // Listed by the service with the in-memory ids of the first page.
      const listed = await (await g.api.get(demo.apiKey, `/v1/conversions?storeId=${demo.storeId}&limit=100`)).json();
      const first = listed.data.find((conversion: { orderId: string }) => conversion.orderId === 'consent-1');
      assert.equal(first.visitorId, identity.visitorId);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  it("a consent call queued through the stub starts the loader pending: calls queued before it store nothing, and consent(false) removes an earlier visit's ids", async () => {
    // An earlier visit's ids (an init script runs on about:blank too, whose storage is off limits).
    const earlierVisit = `if (location.protocol === 'http:') { localStorage.setItem('visualizer.vid', 'earlier-visitor-0001'); sessionStorage.setItem('visualizer.sid', 'earlier-session-0001'); }`;
    const page = `<script>${stubSnippet}</script>
<script>
  window.results = {};
  Visualizer.track('$conversion', { orderId: 'queued-consent-1', totalCents: 700 }).then(function (ok) { results.track = ok; });
  Visualizer.ready(function (sdk) { results.identity = sdk.getIdentity(); });
  Visualizer.consent(false).then(function (ok) { results.consent = ok; });
  setTimeout(function () {
    var script = document.createElement('script');
    script.src = '${base}/widgets/embed.js';
    script.setAttribute('data-store-id', '${demo.storeId}');
    document.head.appendChild(script);
  }, 200);
</script>`;
    const { context, collected, errors } = await sdkContext(
      { page },
      { initScript: `${earlierVisit}\n${recordStorageWrites}` },
    );
    try {
      const tab = await context.newPage();
      await tab.goto(`${base}/sdk-test/page`);
      await tab.waitForFunction(() => window.results.track !== undefined && window.results.consent !== undefined);
      const results = await tab.evaluate(() => window.results);
      assert.equal(results.track, true);
      assert.equal(results.consent, true);
      const identity = results.identity as Identity;
      assert.notEqual(identity.visitorId, 'earlier-visitor-0001', 'the stored id is not read while consent is pending');
      assert.deepEqual(await storageOf(tab), { local: {}, session: {} }, "the earlier visit's ids are removed");
      const writes = await storageWritesOf(tab);
      assert.deepEqual(
        writes.filter(([, method]) => method !== 'removeItem'),
        [],
        'nothing was written',
      );
      assert.equal(collected.length, 1);
      assert.equal((collected[0]!.body as Identity).visitorId, identity.visitorId);
      assert.deepEqual(await identityOf(tab), identity);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  it('without data-consent stores at once, as before, and consent(false) removes it; a wrong value is refused and stores nothing', async () => {
    const { context, errors } = await sdkContext({ plain: embedTag(), typo: pendingTag('yes please') });
    try {
      const page = await openPage(context, `${base}/sdk-test/plain`);
      const identity = await identityOf(page);
      assert.deepEqual(await storageOf(page), {
        local: { 'visualizer.vid': identity.visitorId },
        session: { 'visualizer.sid': identity.sessionId },
      });
      assert.equal(await page.evaluate(() => (window.Visualizer.consent as (value: unknown) => boolean)('yes')), false);
      assert.match(
        errors.at(-1) ?? '',
        /^\[Visualizer\] consent\(granted\): granted must be true or false \(got "yes"\)/,
      );
      assert.equal(await page.evaluate(() => window.Visualizer.consent(false)), true);
      assert.deepEqual(await storageOf(page), { local: {}, session: {} });
      assert.deepEqual(await identityOf(page), identity);

      const typo = await openPage(context, `${base}/sdk-test/typo`);
      await identityOf(typo);
      assert.deepEqual(
        await storageOf(typo),
        { local: {}, session: {} },
        'an unknown data-consent is taken as pending',
      );
      assert.match(errors.at(-1) ?? '', /^\[Visualizer\] data-consent="yes please" is neither "pending" nor "granted"/);
      assert.equal(errors.length, 2, errors.join('\n'));
    } finally {
      await context.close();
    }
  });
});

describe('preload', () => {
  it('loads the widget UI lazily, once, and tries again after a failed load', async () => {
    const { context, errors } = await sdkContext({ page: embedTag() });
    try {
      const widgetRequests: string[] = [];
      context.on('request', (request) => {
        if (/\/widgets\/widget\.[0-9a-f]{16}\.js$/.test(request.url())) widgetRequests.push(request.url());
      });
      await context.route(/\/widgets\/widget\.[0-9a-f]{16}\.js$/, (route) => route.abort('connectionfailed'));
      const page = await openPage(context, `${base}/sdk-test/page`);
      assert.equal(widgetRequests.length, 0, 'the loader alone does not fetch the UI');
      assert.equal(await page.evaluate(() => window.Visualizer.preload()), false);
      assert.equal(errors.length, 2, errors.join('\n')); // the browser's network error, then the SDK's
      assert.match(
        errors[1]!,
        /^\[Visualizer\] preload\(\): could not load http:\/\/localhost:\d+\/widgets\/widget\.[0-9a-f]{16}\.js$/,
      );

      await context.unroute(/\/widgets\/widget\.[0-9a-f]{16}\.js$/);
      assert.equal(await page.evaluate(() => window.Visualizer.preload()), true);
      assert.equal(await page.evaluate(() => window.Visualizer.preload()), true);
      assert.equal(widgetRequests.length, 2, 'one failed and one successful fetch; the third call reuses it');
      assert.equal(
        await page.evaluate(
          () => typeof (window as unknown as { __visualizerWidget?: { open?: unknown } }).__visualizerWidget?.open,
        ),
        'function',
      );
    } finally {
      await context.close();
    }
  });
});
