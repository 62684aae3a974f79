import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { DemoState } from '../../demo/setup.ts';
import { relaxedBrowserLimits } from '../support/browser-app.ts';
import { launchChromium, recordRequests, shopperPhoto, recordPageErrors } from '../support/browser.ts';
import { startGenerationApp, type GenerationApp } from '../support/generation-app.ts';


let browser: Browser;
let g: GenerationApp;
let base: string;
let demo: DemoState;
let photo: Buffer;

before(async () => {
  browser = await launchChromium();
  g = await startGenerationApp({ config: relaxedBrowserLimits });
  base = g.app.container.cradle.config.publicUrl;
  assert.equal((await fetch(`${base}/demo`)).status, 200);
  demo = JSON.parse(readFileSync(path.join(g.app.container.cradle.config.dataDir, 'demo.json'), 'utf8'));
  photo = await shopperPhoto();
});
after(async () => {
  await browser?.close();
  await g?.close();
});

const widget = 'visualizer-widget';
const inWidget = (selector: string) => `${widget} ${selector}`;

async function shopper(viewport = { width: 1000, height: 800 }) {
  const context = await browser.newContext({ viewport });
  const errors = recordPageErrors(context);
  const page = await context.newPage();
  return { context, page, errors };
}

async function productPage(page: Page, id = 'tee-classic') {
  await page.goto(`${base}/demo/product?id=${id}`);
  await page.waitForFunction(() => !!(window.Visualizer as unknown as { __sdk?: boolean }).__sdk);
}

/** Where focus is: on the widget (and which element inside its shadow root), or elsewhere. */
const focus = (page: Page) =>
  page.evaluate(() => {
    const host = document.querySelector('visualizer-widget');
    const inner = host?.shadowRoot?.activeElement as HTMLElement | null | undefined;
    const inWidget = !!host && document.activeElement === host;
    return { inWidget, inner: inner ? inner.className || inner.tagName.toLowerCase() : null, outside: inWidget ? null : (document.activeElement?.id ?? null) };
  });

async function uploadAndWait(page: Page) {
  await page.setInputFiles(inWidget('.photo-input'), { name: 'me.jpg', mimeType: 'image/jpeg', buffer: photo });
  const result = page.locator(inWidget('.result-img'));
  await result.waitFor({ state: 'visible', timeout: 30_000 });
  await page.waitForFunction(() => {
    const image = document.querySelector('visualizer-widget')?.shadowRoot?.querySelector<HTMLImageElement>('.result-img');
    return !!image && image.complete && image.naturalWidth > 0;
  });
  return { src: (await result.getAttribute('src'))!, generationId: (await result.getAttribute('data-generation-id'))! };
}

async function summary() {
  const response = await g.api.get(demo.apiKey, `/v1/analytics/summary?storeId=${demo.storeId}`);
  assert.equal(response.status, 200);
  return response.json();
}

describe('widget and demo shop', () => {
  it('the whole flow: try on, add to cart, check out, the order is reported and attributed to the visualization', async () => {
    const { context, page, errors } = await shopper();
    try {
      const before = await summary();
      const collected = recordRequests(context, '/api/collect');
      await productPage(page);
      const identity = await page.evaluate(() => window.Visualizer.getIdentity());

      await page.click('#try-on');
      const dialog = page.locator(inWidget('[role="dialog"]'));
      await dialog.waitFor();
      assert.equal(await dialog.getAttribute('aria-modal'), 'true');
      assert.equal(await page.locator(inWidget('#vz-title')).textContent(), 'Virtual try-on');

      const { src, generationId } = await uploadAndWait(page);
      assert.match(generationId, /^agen_/);
      const generation = await (await g.api.get(demo.apiKey, `/v1/generations/${generationId}`)).json();
      assert.equal(generation.status, 'complete');
      assert.equal(src, generation.imageVariants.detail.url, 'the detail variant on a wide screen');
      assert.equal(generation.products[0].productId, 'tee-classic');

      // The shop's onAddToCart refuses more than 10: its error is shown.
      await page.fill(inWidget('.qty-input'), '11');
      await page.click(inWidget('.add'));
      await page.locator(inWidget('.message.bad')).waitFor();
      assert.equal(await page.locator(inWidget('.message')).textContent(), 'The demo shop sells at most 10 of an item per order.');

      await page.fill(inWidget('.qty-input'), '2');
      await page.click(inWidget('.add'));
      await page.locator(inWidget('.message.ok')).waitFor();
      assert.equal(await page.locator(inWidget('.message')).textContent(), 'Added 2 to your cart.');
      const calls = await page.evaluate(() => window.demoAddToCartCalls);
      const tee = { productId: 'tee-classic', productTitle: 'Classic Cotton Tee', productImage: `${base}/cdn/demo/tee-classic-red.png`, productUrl: `${base}/demo/product?id=tee-classic` };
      const red = { id: 'red', src: `${base}/cdn/demo/tee-classic-red.png`, alt: 'Brick red' };
      assert.deepEqual(calls, [
        { product: tee, quantity: 11, variation: red },
        { product: tee, quantity: 2, variation: red },
      ]);
      assert.equal(await page.textContent('#cart-count'), '2');

      await page.click(inWidget('.checkout'));
      // The checkout page orders nothing by itself: its form carries the cart and the identity to the shop's server.
      await page.waitForURL(/\/demo\/checkout$/);
      await page.waitForSelector('#place-order:not([disabled])');
      assert.equal(await page.inputValue('input[name="visitorId"]'), identity.visitorId);
      assert.equal(await page.inputValue('input[name="sessionId"]'), identity.sessionId);
      assert.deepEqual(JSON.parse(await page.inputValue('input[name="items"]')), [{ productId: 'tee-classic', quantity: 2 }]);
      await page.click('#place-order');
      await page.waitForURL(/\/demo\/confirmation\?order=demo-/);
      const orderId = new URL(page.url()).searchParams.get('order')!;
      assert.equal(await page.textContent('#order-total'), '$58.00');
      assert.match((await page.textContent('#order-attribution'))!, new RegExp(`attributed to the visualization ${generationId}`));
      assert.equal(await page.textContent('#cart-count'), '0', 'the cart is emptied once the order is placed');
      await page.waitForSelector('#track-status.ok');
      const tracked = collected.filter((entry) => (entry.body as { type: string }).type === '$conversion');
      assert.equal(tracked.length, 1);
      assert.deepEqual(tracked[0]!.body, {
        type: '$conversion',
        props: { orderId, totalCents: 5800, currency: 'USD', status: 'completed', items: [{ productId: 'tee-classic', quantity: 2, priceCents: 2900, totalCents: 5800 }] },
        storeId: demo.storeId,
        ...identity,
      });

      // Reloading the confirmation page orders nothing again.
      await page.reload();
      await page.waitForSelector('#track-status.ok');
      const listed = await (await g.api.get(demo.apiKey, `/v1/conversions?storeId=${demo.storeId}&limit=100`)).json();
      const conversions = listed.data.filter((conversion: { orderId: string }) => conversion.orderId === orderId);
      assert.equal(conversions.length, 1, 'reported twice (webhook and track), counted once');
      const conversion = conversions[0];
      assert.equal(conversion.source, 'both');
      assert.equal(conversion.visitorId, identity.visitorId);
      assert.equal(conversion.sessionId, identity.sessionId);
      assert.equal(conversion.totalCents, 5800);
      assert.equal(conversion.attribution?.generationId, generationId, 'attributed to the visualization');
      assert.equal(conversion.attribution.attributedRevenueCents, 5800);

      const after = await summary();
      assert.equal(after.visualizations - before.visualizations, 1);
      assert.equal(after.conversions - before.conversions, 1);
      assert.equal(after.attributedConversions - before.attributedConversions, 1);
      assert.equal((after.attributedRevenue.USD ?? 0) - (before.attributedRevenue.USD ?? 0), 5800);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  it('loading the checkout with an empty cart, and reloading it, orders nothing', async () => {
    const { context, page, errors } = await shopper();
    try {
      const collected = recordRequests(context, '/api/collect');
      const listed = async () => (await (await g.api.get(demo.apiKey, `/v1/conversions?storeId=${demo.storeId}&limit=100`)).json()).data.length;
      const before = await listed();
      await page.goto(`${base}/demo/checkout`);
      for (let load = 0; load < 3; load++) {
        if (load) await page.reload();
        await page.waitForFunction(() => !!(window.Visualizer as unknown as { __sdk?: boolean }).__sdk);
        // Whatever the page would send, it has sent by then.
        await page.waitForLoadState('networkidle');
        assert.equal(await listed(), before, 'no order recorded');
        assert.deepEqual(collected, [], 'nothing reported from the browser');
        assert.equal(new URL(page.url()).pathname, '/demo/checkout', 'still the checkout page');
        assert.equal(await page.isVisible('#checkout-empty'), true, 'it says the cart is empty');
        assert.equal(await page.isDisabled('#place-order'), true, 'and offers no order');
      }
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  it('is an accessible dialog: focus moves in, Tab stays inside, Esc and the close button close it and restore focus', async () => {
    const { context, page, errors } = await shopper();
    try {
      await productPage(page);
      await page.click('#try-on');
      await page.locator(inWidget('[role="dialog"]')).waitFor();
      const labelledBy = await page.locator(inWidget('[role="dialog"]')).getAttribute('aria-labelledby');
      assert.equal(await page.locator(inWidget(`#${labelledBy}`)).textContent(), 'Virtual try-on');
      assert.deepEqual(await focus(page), { inWidget: true, inner: 'photo-input', outside: null });

      const seen = new Set<string>();
      for (let i = 0; i < 12; i++) {
        await page.keyboard.press('Tab');
        const now = await focus(page);
        assert.equal(now.inWidget, true, `Tab ${i + 1} stayed in the dialog`);
        seen.add(now.inner!);
      }
      for (let i = 0; i < 6; i++) {
        await page.keyboard.press('Shift+Tab');
        assert.equal((await focus(page)).inWidget, true, `Shift+Tab ${i + 1} stayed in the dialog`);
      }
      assert.ok(seen.has('close') && seen.has('photo-input'), `Tab reaches the close button and the photo picker: ${[...seen]}`);

      await page.keyboard.press('Escape');
      await page.locator(widget).waitFor({ state: 'detached' });
      assert.equal((await focus(page)).outside, 'try-on', 'focus is back on the button that opened it');

      await page.click('#try-on');
      await page.locator(inWidget('[role="dialog"]')).waitFor();
      await page.click(inWidget('.close'));
      await page.locator(widget).waitFor({ state: 'detached' });
      assert.equal((await focus(page)).outside, 'try-on');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  it('checks the required productData fields and opens nothing without them', async () => {
    const { context, page, errors } = await shopper();
    try {
      await productPage(page);
      const results = await page.evaluate(async (widgetId) => {
        const image = `${location.origin}/cdn/demo/tee-classic-red.png`;
        const attempts: unknown[] = [
          { productTitle: 'Tee', productImage: image },
          { productId: 'tee', productImage: image },
          { productId: 'tee', productTitle: 'Tee' },
          { productId: 'tee', productTitle: 'Tee', productImage: image, onAddToCart: 'yes' },
        ];
        const outcomes: unknown[] = [];
        for (const data of attempts) outcomes.push(await window.Visualizer.open(widgetId, data as never));
        outcomes.push(await window.Visualizer.open('', { productId: 'tee', productTitle: 'Tee', productImage: image }));
        return outcomes;
      }, demo.widgetId);
      assert.deepEqual(results, [false, false, false, false, false]);
      assert.equal(await page.locator(widget).count(), 0, 'no dialog');
      assert.equal(errors.length, 5);
      for (const [index, field] of ['productId', 'productTitle', 'productImage', 'onAddToCart', 'widgetId'].entries()) {
        assert.ok(errors[index]!.startsWith('[Visualizer] ') && errors[index]!.includes(field), errors[index]);
      }
    } finally {
      await context.close();
    }
  });

  it('refuses product images and links the service would refuse, naming the field; takes https and its own image store', async () => {
    const { context, page, errors } = await shopper();
    try {
      // The https image is answered here, so the page reaches no host beyond loopback.
      const png = Buffer.from(await (await fetch(`${base}/cdn/demo/tee-classic-red.png`)).arrayBuffer());
      await context.route('https://shop.example/**', (route) => route.fulfill({ status: 200, contentType: 'image/png', body: png }));
      await productPage(page);
      const own = `${base}/cdn/demo/tee-classic-red.png`;
      const product = { productId: 'tee', productTitle: 'Tee', productImage: own };
      const refused: Array<[data: Record<string, unknown>, error: string]> = [
        [{ ...product, productImage: 'http://shop.example/tee.png' }, `productImage must be an https URL or an image of this service (${base}/cdn/…); open() got "http://shop.example/tee.png".`],
        [{ ...product, productImages: [{ id: 'red', src: own }, { id: 'blue', src: 'http://shop.example/tee-blue.png' }] }, `productImages[1].src must be an https URL or an image of this service (${base}/cdn/…); open() got "http://shop.example/tee-blue.png".`],
        // The service reads its own images by key, and `?v=2` is part of no key.
        [{ ...product, productImage: `${own}?v=2` }, `productImage must be an https URL or an image of this service (${base}/cdn/…); open() got "${own}?v=2".`],
        [{ ...product, productUrl: 'javascript:void 0' }, 'productUrl must be an http or https URL when given; open() got "javascript:void 0".'],
        [{ ...product, productId: 2 ** 53 }, 'productId must be within ±9007199254740991 as a number; send a larger id as a string.'],
      ];
      const accepted = [own, '/cdn/demo/tee-classic-red.png', 'https://shop.example/tee.png'];
      const outcomes = await page.evaluate(
        async ([widgetId, refusedData, acceptedImages]) => {
          const results: boolean[] = [];
          for (const data of refusedData) results.push(await window.Visualizer.open(widgetId, data as never));
          for (const image of acceptedImages) results.push(await window.Visualizer.open(widgetId, { productId: 'tee', productTitle: 'Tee', productImage: image }));
          return results;
        },
        [demo.widgetId, refused.map(([data]) => data), accepted] as const,
      );
      assert.deepEqual(outcomes, [...refused.map(() => false), ...accepted.map(() => true)]);
      assert.deepEqual(errors, refused.map(([, error]) => `[Visualizer] ${error}`));
      await page.locator(inWidget('.photo-input')).waitFor({ state: 'attached' });
      assert.equal(await page.locator(widget).count(), 1, 'each accepted open replaced the one before');
    } finally {
      await context.close();
    }
  });

  it('takes exactly the product image URLs the service takes', async () => {
    // An organization without credits: the service checks the URLs first, then refuses to charge (403), so nothing renders.
    const { apiKey } = await g.app.tenants.createOrganization({ name: 'Broke', credits: 0 }).then((created) => ({ apiKey: created.apiKey.key }));
    const urls = [
      `${base}/cdn/demo/tee-classic-red.png`,
      `${base}/cdn/demo/tee-classic-red.png?v=2`,
      `${base}/cdn/demo/a%20b.png`,
      `${base}/cdn/demo/tee`,
      `${base}/cdn/demo//tee.png`,
      `${base}/cdnx/tee.png`,
      'http://localhost:1/tee.png',
      'https://localhost:1/tee.png',
    ];
    const server: boolean[] = [];
    for (const imageUrl of urls) {
      const response = await g.api.post(apiKey, { mode: 'virtual-try-on', image: 'https://localhost:1/me.jpg', products: [{ productId: 'tee', productTitle: 'Tee', imageUrl }] });
      const { error } = await response.json();
      assert.ok([400, 403].includes(response.status), `${imageUrl}: ${response.status} ${error.code}`);
      server.push(response.status === 403);
    }
    assert.deepEqual(server, [true, false, false, false, false, false, false, true]);

    const { context, page } = await shopper();
    try {
      await productPage(page);
      const sdk = await page.evaluate(async ([widgetId, list]) => {
        const taken: boolean[] = [];
        for (const productImage of list) taken.push(await window.Visualizer.open(widgetId, { productId: 'tee', productTitle: 'Tee', productImage }));
        return taken;
      }, [demo.widgetId, urls] as const);
      assert.deepEqual(sdk, server);
    } finally {
      await context.close();
    }
  });

  it("logs a refusal the SDK cannot foresee with its param and message, and tells the shopper the product can't be tried on", async () => {
    const { context, page, errors } = await shopper();
    try {
      // The script comes from the service's other address, so `{that address}/cdn/…` looks like the
      // service's own image store to the SDK, while the service only reads its public URL's.
      const other = g.app.url;
      assert.notEqual(new URL(other).origin, new URL(base).origin);
      // A page of the service's own (Chromium lets only a loopback page load scripts from loopback), rewritten as a shop's.
      await page.goto(`${base}/healthz`);
      await page.setContent(`<!doctype html><script async src="${other}/widgets/embed.js" data-store-id="${demo.storeId}"></script>`);
      await page.waitForFunction(() => !!(window.Visualizer as unknown as { __sdk?: boolean } | undefined)?.__sdk);
      const productImage = `${other}/cdn/demo/tee-classic-red.png`;
      const posts = recordRequests(page, `/api/widgets/${demo.widgetId}/generations`);
      assert.equal(await page.evaluate(([id, image]) => window.Visualizer.open(id!, { productId: 'tee', productTitle: 'Tee', productImage: image! }), [demo.widgetId, productImage]), true);
      await page.setInputFiles(inWidget('.photo-input'), { name: 'me.jpg', mimeType: 'image/jpeg', buffer: photo });
      await page.locator(inWidget('.error-text')).waitFor({ state: 'visible', timeout: 30_000 });
      assert.equal(posts.length, 1);
      assert.equal(await page.textContent(inWidget('.error-text')), "This product can't be tried on right now.");
      assert.equal(await page.locator(inWidget('.retry')).isVisible(), false, 'a retry would be refused alike');
      assert.equal(await page.locator(inWidget('.other')).isVisible(), false, 'another photo would be refused alike');
      assert.deepEqual(errors.filter((line) => line.startsWith('[Visualizer]')), [
        '[Visualizer] the service answered 400 parameter_invalid (param products[0].imageUrl): products[0].imageUrl: must be an https URL',
      ]);
    } finally {
      await context.close();
    }
  });

  for (const [cap, code] of [[{ dailyGenerationCap: 1 }, 'daily_cap_reached'], [{ dailyCreditCap: 1 }, 'daily_credit_cap_reached']] as const) {
    it(`tells the shopper visualizations are unavailable once the daily ${code === 'daily_cap_reached' ? 'generation' : 'credit'} cap is reached, and logs it`, async () => {
      const response = await fetch(`${g.app.url}/v1/widgets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${demo.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ storeId: demo.storeId, mode: 'virtual-try-on', allowedOrigins: [new URL(base).origin], ...cap }),
      });
      assert.equal(response.status, 201, await response.clone().text());
      const capped = (await response.json()).id as string;
      const { context, page, errors } = await shopper();
      try {
        await productPage(page);
        const image = `${base}/cdn/demo/tee-classic-red.png`;
        assert.equal(await page.evaluate(([id, src]) => window.Visualizer.open(id!, { productId: 'tee', productTitle: 'Tee', productImage: src! }), [capped, image]), true);
        await uploadAndWait(page);
        await page.click(inWidget('.again'));
        await page.setInputFiles(inWidget('.photo-input'), { name: 'me.jpg', mimeType: 'image/jpeg', buffer: photo });
        await page.locator(inWidget('.error-text')).waitFor({ state: 'visible', timeout: 30_000 });
        assert.equal(await page.textContent(inWidget('.error-text')), 'Visualizations are not available right now. Please try again later.');
        assert.equal(await page.locator(inWidget('.retry')).isVisible(), false);
        const logged = errors.filter((line) => line.startsWith('[Visualizer]'));
        assert.equal(logged.length, 1, logged.join('\n'));
        assert.match(logged[0]!, new RegExp(`^\\[Visualizer\\] the service answered 429 ${code}: .+`));
      } finally {
        await context.close();
      }
    });
  }

  it('explains an unknown widget and a site the widget does not allow, offering only Close, and logs why', async () => {
    const { context, page, errors } = await shopper();
    try {
      // The demo's pages, but served from the app's other address (127.0.0.1 rather than localhost):
      // another origin, which the demo widget does not allow.
      const foreign = new URL(g.app.url).origin;
      assert.notEqual(foreign, new URL(base).origin);
      await page.goto(`${foreign}/demo/product`);
      await page.waitForFunction(() => !!(window.Visualizer as unknown as { __sdk?: boolean }).__sdk);
      const cases: Array<[widgetId: string, message: string]> = [
        ['wdg_doesnotexist000000000000', 'This widget is not available.'],
        [demo.widgetId, 'This widget is not enabled for this website.'],
      ];
      for (const [widgetId, message] of cases) {
        const productImage = `${base}/cdn/demo/tee-classic-red.png`; // on the service the script came from
        assert.equal(await page.evaluate(([id, image]) => window.Visualizer.open(id!, { productId: 'tee', productTitle: 'Tee', productImage: image! }), [widgetId, productImage]), true);
        await page.locator(inWidget('.error-text')).waitFor({ state: 'visible' });
        assert.equal(await page.textContent(inWidget('.error-text')), message);
        assert.equal(await page.locator(inWidget('.retry')).isVisible(), false);
        assert.equal(await page.locator(inWidget('.other')).isVisible(), false);
        assert.equal((await focus(page)).inner, 'close');
        await page.keyboard.press('Escape');
        await page.locator(widget).waitFor({ state: 'detached' });
      }
      assert.deepEqual(errors.filter((line) => line.startsWith('[Visualizer]')), [
        "[Visualizer] the service answered 404 resource_missing (param widgetId): No such widget: 'wdg_doesnotexist000000000000'.",
        `[Visualizer] the service answered 403 origin_not_allowed: ${foreign} is not among this widget's allowed origins.`,
      ]);
    } finally {
      await context.close();
    }
  });

  it('shows the card variant on narrow screens, and a readable error with a retry when a render fails', async () => {
    const { context, page } = await shopper({ width: 420, height: 860 });
    try {
      await productPage(page, 'linen-shirt');
      await page.click('#try-on');
      const { src, generationId } = await uploadAndWait(page);
      const generation = await (await g.api.get(demo.apiKey, `/v1/generations/${generationId}`)).json();
      assert.equal(src, generation.imageVariants.card.url);
      await page.click(inWidget('.close'));

      // A product image that does not exist: the render cannot fetch it.
      await page.evaluate((widgetId) => {
        void window.Visualizer.open(widgetId, { productId: 'ghost', productTitle: 'Ghost shirt', productImage: `${location.origin}/cdn/demo/missing.png` });
      }, demo.widgetId);
      await page.locator(inWidget('.photo-input')).waitFor({ state: 'attached' });
      await page.setInputFiles(inWidget('.photo-input'), { name: 'me.jpg', mimeType: 'image/jpeg', buffer: photo });
      await page.locator(inWidget('.error-text')).waitFor({ state: 'visible', timeout: 30_000 });
      const message = (await page.textContent(inWidget('.error-text')))!;
      assert.ok(message.length > 10 && !/undefined|\[object/.test(message), message);
      assert.ok(await page.locator(inWidget('.retry')).isVisible(), 'a retry is offered');
      assert.equal((await focus(page)).inner, 'button primary retry', 'focus moves to the retry button');
      // Retrying reaches the server again (and fails again the same way).
      const posts = recordRequests(page, `/api/widgets/${demo.widgetId}/generations`);
      await page.click(inWidget('.retry'));
      await page.locator(inWidget('.error-text')).waitFor({ state: 'visible', timeout: 30_000 });
      assert.equal(posts.filter((request) => request.method === 'POST').length, 1);
    } finally {
      await context.close();
    }
  });
});
