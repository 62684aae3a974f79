import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { databaseMatrix, errorOf, shopOrigin, startBrowserApp, type BrowserApp } from './support/browser-app.ts';

/**
 * Input no database can store, and ids no database holds, on every route besides generations
 * (test/generations.test.ts covers those): U+0000 (Postgres refuses it in text, which was a 500)
 * and lone surrogates (UTF-8 cannot encode one, so it read back as U+FFFD) in any JSON body are a
 * 400 naming the field; a path id that cannot be an id is a 404, and a cursor or id filter in the
 * query a 400 naming it, without asking the database.
 */
const matrix = databaseMatrix();
after(() => matrix.stop());

for (const [database, environment] of matrix.databases) {
  describe(`unstorable input on ${database}`, () => {
    let b: BrowserApp;
    let shop: Awaited<ReturnType<BrowserApp['organization']>>;
    let widgetId: string;

    before(async () => {
      b = await startBrowserApp({ env: await environment() });
      shop = await b.organization('Shop', 10);
      widgetId = (await b.createWidget(shop.apiKey, { storeId: shop.storeId })).id;
    });
    after(() => b.close());

    const send = (
      path: string,
      init: { method?: string; body?: string; contentType?: string; key?: string | null; origin?: string } = {},
    ) =>
      fetch(b.url(path), {
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        headers: {
          ...(init.key === null ? {} : { authorization: `Bearer ${init.key ?? shop.apiKey}` }),
          ...(init.body === undefined ? {} : { 'content-type': init.contentType ?? 'application/json' }),
          ...(init.origin ? { origin: init.origin } : {}),
        },
        body: init.body,
      });

    it('refuses U+0000 and lone surrogates in every JSON body, naming the field', async () => {
      const cases: Array<[string, Parameters<typeof send>[1], string]> = [
        ['/v1/stores', { body: JSON.stringify({ name: 'Shop\u0000' }) }, 'name'],
        [
          '/v1/webhook-endpoints',
          {
            body: JSON.stringify({
              url: 'https://hooks.example/x',
              description: 'a\ud800',
              enabledEvents: ['generation.completed'],
            }),
          },
          'description',
        ],
        [
          '/v1/webhook-endpoints/whe_unknown',
          { method: 'PATCH', body: JSON.stringify({ description: 'a\u0000' }) },
          'description',
        ],
        ['/v1/events/evt_unknown/resend', { body: JSON.stringify({ endpointId: 'whe_\u0000' }) }, 'endpointId'],
        [
          '/v1/widgets',
          { body: JSON.stringify({ storeId: 'store_\u0000', mode: 'virtual-try-on', allowedOrigins: [shopOrigin] }) },
          'storeId',
        ],
        [
          '/api/webhooks/orders',
          { key: shop.conversionKey, body: JSON.stringify({ orderId: 'o\u0000', items: [] }) },
          'orderId',
        ],
        [
          '/api/collect',
          {
            key: null,
            contentType: 'text/plain;charset=UTF-8',
            origin: shopOrigin,
            body: JSON.stringify({ storeId: shop.storeId, visitorId: 'v\udfff' }),
          },
          'visitorId',
        ],
        [
          `/api/widgets/${widgetId}/generations`,
          { key: null, origin: shopOrigin, body: JSON.stringify({ ...b.widgetBody('v1', 's1'), hint: '\u0000' }) },
          'hint',
        ],
        [
          `/api/widgets/${widgetId}/generations`,
          {
            key: null,
            origin: shopOrigin,
            body: JSON.stringify({
              ...b.widgetBody('v1', 's1'),
              products: [{ productId: 'p', productTitle: 't', imageUrl: 'https://x.example/p.png', '\u0000': 1 }],
            }),
          },
          'products[0].\\u0000',
        ],
      ];
      for (const [path, init, param] of cases) {
        const error = await errorOf(await send(path, init), 400);
        assert.deepEqual(
          [error.type, error.code, error.param],
          ['invalid_request_error', 'parameter_invalid', param],
          `${path}: ${error.message}`,
        );
      }
    });

    it('finds U+0000 in a body nested as deep as the size limit allows, without exhausting the stack', async () => {
      const depth = 400_000;
      const body = `{"name":${'['.repeat(depth)}"\\u0000"${']'.repeat(depth)}}`;
      const error = await errorOf(await send('/v1/stores', { body }), 400);
      assert.ok(
        error.param === `name${'[0]'.repeat(depth)}`,
        `param: ${error.param?.slice(0, 40)}… (${error.param?.length} characters)`,
      );
    });

    it('answers path ids that cannot be ids with 404 on every route that takes one', async () => {
      for (const bad of ['abc%00', `whe_${'x'.repeat(61)}`]) {
        const routes: Array<[string, Parameters<typeof send>[1]]> = [
          [`/v1/webhook-endpoints/${bad}`, {}],
          [`/v1/webhook-endpoints/${bad}`, { method: 'PATCH', body: JSON.stringify({ description: 'x' }) }],
          [`/v1/webhook-endpoints/${bad}`, { method: 'DELETE' }],
          [`/v1/webhook-endpoints/${bad}/rotate-secret`, { method: 'POST' }],
          [`/v1/events/${bad}`, {}],
          [`/v1/events/${bad}/attempts`, {}],
          [`/v1/events/${bad}/resend`, { method: 'POST' }],
          [`/v1/widgets/${bad}`, {}],
          [`/api/widgets/${bad}`, { key: null, origin: shopOrigin }],
          [`/api/widgets/${widgetId}/generations/${bad}?visitorId=v1`, { key: null, origin: shopOrigin }],
        ];
        for (const [path, init] of routes) {
          const response = await send(path, init);
          const error = await errorOf(response, 404);
          assert.deepEqual(
            [error.type, error.code],
            ['not_found_error', 'resource_missing'],
            `${init?.method ?? 'GET'} ${path}`,
          );
        }
      }
      const keyless = await send('/api/widgets/abc%00/generations', {
        key: null,
        origin: shopOrigin,
        body: JSON.stringify(b.widgetBody('v1', 's1')),
      });
      assert.equal(
        keyless.headers.get('access-control-allow-origin'),
        '*',
        'an unknown widget is a 404 any page can read',
      );
      assert.equal((await errorOf(keyless, 404)).param, 'widgetId');
    });

    it('answers cursors and id filters that cannot be ids with 400 naming the parameter', async () => {
      const cases: Array<[string, string]> = [
        ['/v1/webhook-endpoints?starting_after=abc%00', 'starting_after'],
        ['/v1/events?starting_after=abc%00', 'starting_after'],
        [`/v1/events?starting_after=evt_${'x'.repeat(61)}`, 'starting_after'],
        ['/v1/widgets?starting_after=abc%00', 'starting_after'],
        ['/v1/widgets?storeId=abc%00', 'storeId'],
        ['/v1/conversions?starting_after=abc%00', 'starting_after'],
        ['/v1/conversions?storeId=abc%00', 'storeId'],
        ['/v1/analytics/summary?storeId=abc%00', 'storeId'],
      ];
      for (const [path, param] of cases) {
        const error = await errorOf(await send(path), 400);
        assert.deepEqual([error.type, error.param], ['invalid_request_error', param], path);
      }
      const visitor = await errorOf(
        await send(`/api/widgets/${widgetId}/generations/agen_x?visitorId=v%00`, { key: null, origin: shopOrigin }),
        400,
      );
      assert.equal(visitor.param, 'visitorId');
    });
  });
}
