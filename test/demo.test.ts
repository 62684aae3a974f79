import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { startTestApp } from './support/app.ts';

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
      assert.ok(html.includes(`<script async src="${base}/widgets/embed.js" data-store-id="${state.storeId}"></script>`));
      assert.ok(html.includes('window.Visualizer=window.Visualizer||{q:[]}'), 'with the stub snippet');

      const image = await fetch(`${app.url}/cdn/demo/linen-shirt-sand.png`);
      assert.equal(image.status, 200);
      assert.equal(image.headers.get('content-type'), 'image/png');

      assert.equal((await fetch(`${app.url}/demo/product?id=nope`)).status, 404);
      const checkout = await fetch(`${app.url}/demo/checkout`, { redirect: 'manual' });
      assert.equal(checkout.status, 303);
      assert.match(checkout.headers.get('location')!, /^\/demo\/confirmation\?order=demo-\w{12}$/);

      // The shop's server handler shows what the order webhook answered, errors included.
      const refused = await fetch(`${app.url}/demo/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ orderId: '', visitorId: 'v', sessionId: 's', items: '[]' }),
      });
      assert.equal(refused.status, 502);
      const answer = await refused.text();
      assert.match(answer, /Order not reported/);
      assert.match(answer, /orderId/);

      const reported = await fetch(`${app.url}/demo/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ orderId: 'demo-form-1', visitorId: 'v-1', sessionId: 's-1', items: JSON.stringify([{ productId: 'linen-shirt', quantity: 2 }]) }),
      });
      assert.equal(reported.status, 200);
      assert.match(await reported.text(), /Order reported/);
      const listed = await (await fetch(`${app.url}/v1/conversions?storeId=${state.storeId}`, { headers: { authorization: `Bearer ${state.apiKey}` } })).json();
      const conversion = listed.data.find((entry: { orderId: string }) => entry.orderId === 'demo-form-1');
      assert.equal(conversion.totalCents, 11800, 'priced by the shop server from its catalogue');
      assert.deepEqual(conversion.items, [{ productId: 'linen-shirt', quantity: 2, priceCents: 5900, totalCents: 11800 }]);
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
      const sameOrigin = await createKernel(first.container.cradle.config, { catalogue: builtinPlugins, logger: silentLogger });
      const again = await demoState(sameOrigin.cradle);
      assert.equal(again.organizationId, state.organizationId);
      assert.equal(again.widgetId, state.widgetId);
      const moved = await createKernel(loadConfig({ VISUALIZER_DATA_DIR: dataDir, VISUALIZER_PUBLIC_URL: 'http://127.0.0.1:4999' }), { catalogue: builtinPlugins, logger: silentLogger });
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
});
