import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../config/load.ts';
import { demoAvailability, demoBannerLine } from '../demo/availability.ts';
import { ensureDevelopmentAdmin } from '../cli/development-sign-in.ts';
import { demoDashboardLine, type DemoState } from '../demo/setup.ts';
import { bearer, startTestApp, type TestApp } from './support/app.ts';

describe('demo shop', () => {
  it('is served in development: pages carry the embed tag with the demo store id; state is kept in demo.json', async () => {
    const app = await startTestApp();
    try {
      const base = app.container.cradle.config.publicUrl;
      const page = await fetch(`${app.url}/demo/product?id=linen-shirt`);
      assert.equal(page.status, 200);
      assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
      const html = await page.text();
      const state = JSON.parse(readFileSync(path.join(app.container.cradle.config.dataDir, 'demo.json'), 'utf8'));
      assert.match(state.apiKey, /^visualizer_/);
      assert.match(state.conversionKey, /^viz_/);
      assert.match(state.widgetId, /^wdg_/);
      assert.equal(state.origin, new URL(base).origin);
      assert.ok(
        html.includes(`<script async src="${base}/widgets/embed.js" data-store-id="${state.storeId}"></script>`),
      );
      assert.ok(html.includes('window.Visualizer=window.Visualizer||{q:[]}'), 'with the stub snippet');

      const image = await fetch(`${app.url}/cdn/demo/linen-shirt-sand.png`);
      assert.equal(image.status, 200);
      assert.equal(image.headers.get('content-type'), 'image/png');

      assert.equal((await fetch(`${app.url}/demo/product?id=nope`)).status, 404);
    } finally {
      await app.close();
    }
  });

  it('reuses demo.json across restarts and makes a new widget when the origin changes', async () => {
    const first = await startTestApp();
    const dataDir = first.container.cradle.config.dataDir;
    let state: { organizationId: string; widgetId: string };
    try {
      assert.equal((await fetch(`${first.url}/demo`)).status, 200);
      state = JSON.parse(readFileSync(path.join(dataDir, 'demo.json'), 'utf8'));
      // Same data dir, another process: a second app on the same files (same port, so the same origin).
      const { createKernel } = await import('../core/kernel.ts');
      const { builtinPlugins } = await import('../plugins/catalogue.ts');
      const { silentLogger } = await import('../core/logger.ts');
      const { demoState } = await import('../demo/setup.ts');
      const { loadConfig } = await import('../config/load.ts');
      const sameOrigin = await createKernel(first.container.cradle.config, {
        catalogue: builtinPlugins,
        logger: silentLogger,
      });
      const again = await demoState(sameOrigin.cradle);
      assert.equal(again.organizationId, state.organizationId);
      assert.equal(again.widgetId, state.widgetId);
      const moved = await createKernel(
        loadConfig({ VISUALIZER_DATA_DIR: dataDir, VISUALIZER_PUBLIC_URL: 'http://127.0.0.1:4999' }),
        { catalogue: builtinPlugins, logger: silentLogger },
      );
      const elsewhere = await demoState(moved.cradle);
      assert.equal(elsewhere.organizationId, state.organizationId);
      assert.notEqual(elsewhere.widgetId, state.widgetId);
      assert.equal(elsewhere.origin, 'http://127.0.0.1:4999');
      await sameOrigin.dispose();
      await moved.dispose();
    } finally {
      await first.close();
    }
  });

  it('keeps an organization of its own without a development one, and moves into the development one once there is', async () => {
    const app = await startTestApp();
    try {
      const { cradle } = app.container;
      assert.equal((await fetch(`${app.url}/demo`)).status, 200);
      const alone: DemoState = JSON.parse(readFileSync(path.join(cradle.config.dataDir, 'demo.json'), 'utf8'));
      assert.equal((await cradle.persistence.organizations.get(alone.organizationId))?.name, 'Demo shop');
      assert.equal(
        await demoDashboardLine(cradle),
        `Demo shop's try-ons and orders: in an organization of its own, "Demo shop" (${alone.organizationId}). To see them on the dashboard: npx visualizer users invite --org ${alone.organizationId} --email you@example.com --role admin`,
      );

      // An older data dir's demo, then a development organization: the next process moves the demo there.
      const created = await app.tenants.createOrganization({ name: 'Development', credits: 100 });
      await ensureDevelopmentAdmin(cradle, created.organization.id);
      const { createKernel } = await import('../core/kernel.ts');
      const { builtinPlugins } = await import('../plugins/catalogue.ts');
      const { silentLogger } = await import('../core/logger.ts');
      const { demoState } = await import('../demo/setup.ts');
      const next = await createKernel(loadConfig({ VISUALIZER_DATA_DIR: cradle.config.dataDir }), {
        catalogue: builtinPlugins,
        logger: silentLogger,
      });
      try {
        const moved = await demoState(next.cradle);
        assert.equal(moved.organizationId, created.organization.id);
        assert.notEqual(moved.storeId, alone.storeId);
        assert.equal(
          (await next.cradle.persistence.widgets.get(moved.organizationId, moved.widgetId))?.storeId,
          moved.storeId,
        );
        const saved = JSON.parse(readFileSync(path.join(cradle.config.dataDir, 'demo.json'), 'utf8'));
        assert.equal(saved.organizationId, created.organization.id);
      } finally {
        await next.dispose();
      }
    } finally {
      await app.close();
    }
  });

  it('is off when demo.enabled is false, and by default when NODE_ENV is production', async () => {
    const disabled = await startTestApp({ config: { demo: { enabled: false } } });
    try {
      const response = await fetch(`${disabled.url}/demo`);
      assert.equal(response.status, 404);
      assert.equal((await response.json()).error.code, 'route_not_found');
      assert.equal((await fetch(`${disabled.url}/widgets/embed.js`)).status, 200, 'the SDK is served regardless');
    } finally {
      await disabled.close();
    }
    const previous = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      const production = await startTestApp();
      try {
        assert.equal((await fetch(`${production.url}/demo`)).status, 404);
      } finally {
        await production.close();
      }
      const optedIn = await startTestApp({ config: { demo: { enabled: true } } });
      try {
        assert.equal((await fetch(`${optedIn.url}/demo`)).status, 200);
      } finally {
        await optedIn.close();
      }
    } finally {
      if (previous === undefined) delete process.env.NODE_ENV;
      else process.env.NODE_ENV = previous;
    }
  });

  it('is on by default only where nobody else can reach it; demo.enabled or VISUALIZER_DEMO decides either way', () => {
    const config = (env: Record<string, string>, file: Record<string, unknown> = {}) =>
      loadConfig({ VISUALIZER_DATA_DIR: '/tmp/unused', ...env }, file);
    const development = {};
    for (const host of ['127.0.0.1', '127.0.0.2', '::1', '[::1]', 'localhost', 'LOCALHOST', '::ffff:127.0.0.1']) {
      assert.deepEqual(
        demoAvailability(config({ HOST: host }), development),
        { enabled: true, reason: `this server listens on ${host}, loopback only` },
        host,
      );
    }
    for (const host of ['0.0.0.0', '::', '192.168.1.20', 'shop.example']) {
      assert.equal(demoAvailability(config({ HOST: host }), development).enabled, false, host);
    }
    assert.match(
      demoAvailability(config({ VISUALIZER_PUBLIC_URL: 'https://visualizer.example' }), development).reason,
      /public URL https:\/\/visualizer\.example is not on this machine/,
    );
    assert.match(demoAvailability(config({}, { trustProxy: true }), development).reason, /trustProxy/);
    assert.deepEqual(demoAvailability(config({}), { NODE_ENV: 'production' }), {
      enabled: false,
      reason: 'NODE_ENV is production',
    });

    assert.equal(
      demoAvailability(config({ HOST: '0.0.0.0' }, { demo: { enabled: true } }), { NODE_ENV: 'production' }).enabled,
      true,
    );
    assert.equal(demoAvailability(config({ HOST: '0.0.0.0', VISUALIZER_DEMO: 'true' }), development).enabled, true);
    assert.equal(demoAvailability(config({ VISUALIZER_DEMO: 'off' }), development).enabled, false);
    assert.throws(() => config({ VISUALIZER_DEMO: 'maybe' }), /demo\.enabled \(VISUALIZER_DEMO\)/);

    assert.equal(
      demoBannerLine(config({ HOST: '0.0.0.0', PORT: '3000' }), development),
      'Demo shop: off, because HOST 0.0.0.0 is not loopback alone (other machines can reach it). To serve it anyway: VISUALIZER_DEMO=true, or "demo": { "enabled": true } in the config file.',
    );
    assert.equal(
      demoBannerLine(config({ PORT: '3000' }), development),
      'Demo shop: http://localhost:3000/demo (served because this server listens on 127.0.0.1, loopback only)',
    );
    assert.equal(
      demoBannerLine(config({ VISUALIZER_DEMO: 'false' }), development),
      'Demo shop: off, because demo.enabled is false.',
    );
  });

  describe('checkout', () => {
    let app: TestApp;
    let state: DemoState;
    const form = (fields: Record<string, string>) =>
      fetch(`${app.url}/demo/checkout`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields),
      });
    const conversions = async (): Promise<
      Array<{ orderId: string; totalCents: number; items: unknown[]; visitorId: string; source: string }>
    > => {
      const response = await fetch(`${app.url}/v1/conversions?storeId=${state.storeId}&limit=100`, {
        headers: bearer(state.apiKey),
      });
      assert.equal(response.status, 200);
      return (await response.json()).data;
    };

    let development: { organizationId: string; apiKey: string };

    before(async () => {
      app = await startTestApp();
      // As `npm start` makes on a new database: the Development organization and its admin.
      const created = await app.tenants.createOrganization({ name: 'Development', credits: 100 });
      await ensureDevelopmentAdmin(app.container.cradle, created.organization.id);
      development = { organizationId: created.organization.id, apiKey: created.apiKey.key };
      assert.equal((await fetch(`${app.url}/demo`)).status, 200);
      state = JSON.parse(readFileSync(path.join(app.container.cradle.config.dataDir, 'demo.json'), 'utf8'));
    });

    it('keeps its store in the development organization, whose dashboard the sign-in link opens', async () => {
      assert.equal(state.organizationId, development.organizationId);
      const stores = await app.tenants.listStores(development.organizationId);
      assert.ok(stores.some((store) => store.id === state.storeId && store.name === 'Northwind Threads (demo)'));
      assert.equal((await app.tenants.listOrganizations()).length, 1, 'no organization of its own');
      assert.match(
        await demoDashboardLine(app.container.cradle),
        new RegExp(`on the dashboard of the organization Development \\(${development.organizationId}\\)`),
      );
    });
    after(() => app.close());

    it('a GET shows the cart and a form that posts it, and places nothing however often it is loaded', async () => {
      for (let load = 0; load < 3; load++) {
        const page = await fetch(`${app.url}/demo/checkout`, { redirect: 'manual' });
        assert.equal(page.status, 200, 'a page, not a redirect to a confirmation');
        const html = await page.text();
        assert.match(html, /<form method="post" action="\/demo\/checkout" id="checkout-form">/);
        assert.match(html, /<button class="btn primary" type="submit" id="place-order" disabled>Place order<\/button>/);
      }
      assert.deepEqual(await conversions(), []);
      const unknown = await fetch(`${app.url}/demo/confirmation?order=demo-nothing`);
      assert.equal(unknown.status, 404, 'a confirmation is only for an order the shop placed');
      assert.match(await unknown.text(), /No such order/);
      assert.deepEqual(await conversions(), []);
    });

    it('an empty cart cannot place an order', async () => {
      for (const items of [
        '[]',
        '',
        'not json',
        JSON.stringify([
          { productId: 'nope', quantity: 1 },
          { productId: 'tee-classic', quantity: 0 },
        ]),
      ]) {
        const refused = await form({ items, visitorId: 'v-empty', sessionId: 's-empty' });
        assert.equal(refused.status, 400, items);
        assert.deepEqual((await refused.json()).error, {
          type: 'invalid_request_error',
          code: 'parameter_invalid',
          message: 'The cart is empty: add a product before placing an order.',
          param: 'items',
        });
      }
      assert.deepEqual(await conversions(), []);
    });

    it('a POST with a cart places one order, priced by the shop server, and redirects to its confirmation, which a reload does not order again', async () => {
      const placed = await form({
        visitorId: 'v-1',
        sessionId: 's-1',
        items: JSON.stringify([
          { productId: 'linen-shirt', quantity: 2, priceCents: 1 },
          { productId: 'tee-classic', quantity: 1 },
          { productId: 'nope', quantity: 3 },
        ]),
      });
      assert.equal(placed.status, 303);
      const location = placed.headers.get('location')!;
      const orderId = /^\/demo\/confirmation\?order=(demo-\w{12})$/.exec(location)?.[1];
      assert.ok(orderId, location);

      const expected = [{ orderId, totalCents: 14700, source: 'server', visitorId: 'v-1' }];
      const summary = (list: Awaited<ReturnType<typeof conversions>>) =>
        list.map(({ orderId, totalCents, source, visitorId }) => ({ orderId, totalCents, source, visitorId }));
      const [conversion] = await conversions();
      assert.deepEqual(
        conversion!.items,
        [
          { productId: 'linen-shirt', quantity: 2, priceCents: 5900, totalCents: 11800 },
          { productId: 'tee-classic', quantity: 1, priceCents: 2900, totalCents: 2900 },
        ],
        'priced from the catalogue, whatever the form said',
      );
      for (let load = 0; load < 3; load++) {
        const confirmation = await fetch(`${app.url}${location}`);
        assert.equal(confirmation.status, 200);
        const html = await confirmation.text();
        assert.ok(html.includes(`<code id="order-id">${orderId}</code>`));
        assert.ok(html.includes('<th id="order-total">$147.00</th>'));
        assert.deepEqual(summary(await conversions()), expected);
      }
    });

    it('names the colour of what was bought on the confirmation, and shows the order to the development organization', async () => {
      const placed = await form({
        visitorId: 'v-3',
        sessionId: 's-3',
        items: JSON.stringify([
          { productId: 'hoodie-everyday', colorId: 'charcoal', quantity: 1 },
          { productId: 'hoodie-everyday', colorId: 'mustard', quantity: 2 },
          { productId: 'tee-classic', colorId: 'no-such-colour', quantity: 1 },
        ]),
      });
      assert.equal(placed.status, 303);
      const location = placed.headers.get('location')!;
      const orderId = new URL(location, app.url).searchParams.get('order')!;
      const html = await (await fetch(`${app.url}${location}`)).text();
      assert.ok(html.includes('<tr><td>Everyday Hoodie — Charcoal</td><td>1</td><td>$69.00</td></tr>'), html);
      assert.ok(html.includes('<tr><td>Everyday Hoodie — Mustard</td><td>2</td><td>$138.00</td></tr>'));
      assert.ok(
        html.includes('<tr><td>Classic Cotton Tee</td><td>1</td><td>$29.00</td></tr>'),
        'an unknown colour is left out',
      );
      assert.ok(html.includes('<th id="order-total">$236.00</th>'));

      // The development organization's own key (the one its dashboard's session stands for) sees the order.
      const response = await fetch(`${app.url}/v1/conversions?limit=100`, { headers: bearer(development.apiKey) });
      assert.equal(response.status, 200);
      const order = (await response.json()).data.find((each: { orderId: string }) => each.orderId === orderId);
      assert.ok(order, 'the order is among the development organization’s conversions');
      assert.deepEqual(
        order.items.map(({ productId, quantity }: { productId: string; quantity: number }) => [productId, quantity]),
        [
          ['hoodie-everyday', 3],
          ['tee-classic', 1],
        ],
        'one item per product for the order webhook',
      );
    });

    it('shows what the order webhook answered when it refuses the order', async () => {
      const before = await conversions();
      const keys = await app.tenants.listKeys(state.organizationId);
      const demoKey = keys.find((key) => key.kind === 'conversion' && key.name === 'demo shop');
      await app.tenants.revokeKey(state.organizationId, demoKey!.id);
      const refused = await form({
        visitorId: 'v-2',
        sessionId: 's-2',
        items: JSON.stringify([{ productId: 'tee-classic', quantity: 1 }]),
      });
      assert.equal(refused.status, 502);
      const html = await refused.text();
      assert.match(html, /Order not placed/);
      assert.match(html, /authentication_error/);
      assert.deepEqual(await conversions(), before);
    });
  });
});
