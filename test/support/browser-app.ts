import assert from 'node:assert/strict';
import { asValue } from 'awilix';
import { startGenerationApp, type GenerationApp } from './generation-app.ts';

/** Generous limits for keyless endpoints: every request in these suites comes from 127.0.0.1. */
export const relaxedBrowserLimits = {
  conversions: {
    collectPerIp: { perSecond: 10_000, burst: 10_000 },
    collectPerVisitor: { perSecond: 10_000, burst: 10_000 },
  },
  widgets: {
    generationsPerIp: { perSecond: 10_000, burst: 10_000 },
    generationsPerVisitor: { perSecond: 10_000, burst: 10_000 },
    readsPerIp: { perSecond: 10_000, burst: 10_000 },
  },
};

export const shopOrigin = 'https://shop.example';

export { databaseMatrix, errorOf } from './databases.ts';

/**
 * The real app with workers, a clock tests can move (`shift(ms)`; services read it when first
 * resolved, which is after this), and helpers for the calls shops and shoppers' browsers make.
 */
export async function startBrowserApp(
  options: { env?: Record<string, string>; config?: Record<string, unknown> } = {},
) {
  const g = await startGenerationApp({ env: options.env, config: { ...relaxedBrowserLimits, ...options.config } });
  let offsetMs = 0;
  g.app.container.register({ clock: asValue({ now: () => Date.now() + offsetMs }) });
  const url = (path: string) => `${g.app.url}${path}`;

  const helpers = {
    g,
    url,
    /** Moves the service clock by `ms` from real time (0 puts it back). Render jobs created meanwhile wait for real time to catch up. */
    setClockOffset(ms: number) {
      offsetMs = ms;
    },
    async organization(name = 'Shop', credits = 100) {
      const created = await g.app.tenants.createOrganization({ name, credits });
      return {
        organizationId: created.organization.id,
        storeId: created.store.id,
        apiKey: created.apiKey.key,
        conversionKey: created.conversionKey.key,
      };
    },
    v1: (apiKey: string, path: string, init: { method?: string; body?: unknown } = {}) =>
      fetch(url(path), {
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        headers: {
          authorization: `Bearer ${apiKey}`,
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      }),
    async createWidget(apiKey: string, body: Record<string, unknown>) {
      const response = await helpers.v1(apiKey, '/v1/widgets', {
        body: { mode: 'virtual-try-on', allowedOrigins: [shopOrigin], ...body },
      });
      const text = await response.text();
      assert.equal(response.status, 201, text);
      return JSON.parse(text) as {
        id: string;
        storeId: string;
        mode: string;
        imageSize: string;
        allowedOrigins: string[];
        dailyGenerationCap: number;
      };
    },
    /** What the widget sends: JSON from the shop's page, so with its Origin. */
    widgetGeneration: (widgetId: string, body: unknown, origin: string | null = shopOrigin) =>
      fetch(url(`/api/widgets/${widgetId}/generations`), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(origin ? { origin } : {}) },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    widgetBody(
      visitorId: string,
      sessionId: string,
      productIds: Array<string | number> = ['sku-1'],
      overrides: Record<string, unknown> = {},
    ) {
      return {
        visitorId,
        sessionId,
        image: `${g.host.url}/photo.jpg`,
        products: productIds.map((productId) => ({
          productId,
          productTitle: `Product ${productId}`,
          imageUrl: `${g.host.url}/product.png`,
        })),
        ...overrides,
      };
    },
    /** Polls the keyless GET, as the widget does, until the generation is done. */
    async settledForVisitor(widgetId: string, id: string, visitorId: string, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const response = await fetch(
          url(`/api/widgets/${widgetId}/generations/${id}?visitorId=${encodeURIComponent(visitorId)}`),
          { headers: { origin: shopOrigin } },
        );
        assert.equal(response.status, 200, await response.clone().text());
        const generation = await response.json();
        if (generation.status !== 'processing') return generation;
        if (Date.now() > deadline) throw new Error(`generation ${id} still processing after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    /** A shopper's visualization through the widget, finished. */
    async visualize(
      widgetId: string,
      visitorId: string,
      sessionId: string,
      productIds: Array<string | number> = ['sku-1'],
      overrides: Record<string, unknown> = {},
    ) {
      const response = await helpers.widgetGeneration(
        widgetId,
        helpers.widgetBody(visitorId, sessionId, productIds, overrides),
      );
      const text = await response.text();
      assert.equal(response.status, 202, text);
      return helpers.settledForVisitor(widgetId, JSON.parse(text).id, visitorId) as Promise<{
        id: string;
        status: string;
        createdAt: string;
        products: unknown[];
      }>;
    },
    postOrder: (body: unknown, conversionKey: string | null) =>
      fetch(url('/api/webhooks/orders'), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(conversionKey ? { authorization: `Bearer ${conversionKey}` } : {}),
        },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    /** What the SDK sends: a string body, so `text/plain` and no preflight. */
    collect: (body: unknown, contentType = 'text/plain;charset=UTF-8', origin = shopOrigin) =>
      fetch(url('/api/collect'), {
        method: 'POST',
        headers: { 'content-type': contentType, origin },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    async conversions(apiKey: string, query = '') {
      const response = await helpers.v1(apiKey, `/v1/conversions${query}`);
      const text = await response.text();
      assert.equal(response.status, 200, text);
      return JSON.parse(text) as { object: string; data: Conversion[]; has_more: boolean };
    },
    async conversion(apiKey: string, storeId: string, orderId: string) {
      const { data } = await helpers.conversions(apiKey, `?storeId=${storeId}&limit=100`);
      const found = data.find((conversion) => conversion.orderId === orderId);
      assert.ok(found, `conversion ${orderId} listed`);
      return found;
    },
    async summary(apiKey: string, query: string) {
      const response = await helpers.v1(apiKey, `/v1/analytics/summary${query}`);
      const text = await response.text();
      assert.equal(response.status, 200, text);
      return JSON.parse(text);
    },
    close: () => g.close(),
  };
  return helpers;
}

export type BrowserApp = Awaited<ReturnType<typeof startBrowserApp>>;

export interface Conversion {
  id: string;
  object: string;
  orderId: string;
  storeId: string;
  visitorId: string | null;
  sessionId: string | null;
  totalCents: number;
  currency: string;
  status: string;
  items: Array<{ productId: string; quantity: number; priceCents: number; totalCents: number }>;
  source: string;
  orderCreatedAt: string;
  attribution: { generationId: string; attributedRevenueCents: number; attributedItems: string[] } | null;
  createdAt: string;
  updatedAt: string;
}

export type { GenerationApp };
