import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { databaseMatrix, errorOf, shopOrigin, startBrowserApp, type BrowserApp } from './support/browser-app.ts';

const day = 86_400_000;
const matrix = databaseMatrix();
after(() => matrix.stop());

for (const [database, environment] of matrix.databases) {
  describe(`conversions on ${database}`, () => {
    let b: BrowserApp;
    let shop: Awaited<ReturnType<BrowserApp['organization']>>;
    let other: Awaited<ReturnType<BrowserApp['organization']>>;
    let widgetId: string;
    let orderSeq = 0;
    const nextOrderId = () => `order-${database}-${++orderSeq}`;

    /** A valid order webhook body for `shop`, every field per the spec's Conversion table. */
    const order = (overrides: Record<string, unknown> = {}) => ({
      orderId: nextOrderId(),
      storeId: shop.storeId,
      organizationId: shop.organizationId,
      visitorId: 'visitor-a',
      sessionId: 'session-a',
      totalCents: 5_000,
      currency: 'USD',
      platform: 'custom',
      status: 'completed',
      orderCreatedAt: new Date().toISOString(),
      items: [{ productId: 'sku-1', quantity: 2, priceCents: 2_000, totalCents: 4_000 }],
      ...overrides,
    });
    const report = async (body: Record<string, unknown>, key = shop.conversionKey) => {
      const response = await b.postOrder(body, key);
      assert.equal(response.status, 200, await response.clone().text());
      assert.deepEqual(await response.json(), { success: true });
      return b.conversion(shop.apiKey, String(body.storeId ?? shop.storeId), String(body.orderId));
    };
    const track = async (storeId: string, visitorId: string, sessionId: string, props: Record<string, unknown>) => {
      const response = await b.collect({ type: '$conversion', storeId, visitorId, sessionId, props });
      assert.equal(response.status, 202, await response.clone().text());
      assert.deepEqual(await response.json(), { success: true });
    };

    before(async () => {
      b = await startBrowserApp({ env: await environment() });
      shop = await b.organization('Shop', 200);
      other = await b.organization('Other', 10);
      widgetId = (await b.createWidget(shop.apiKey, { storeId: shop.storeId })).id;
    });
    after(() => b.close());

    describe('order webhook', () => {
      it('records an order and answers { success: true }', async () => {
        const body = order({ orderCreatedAt: '2025-03-01T10:00:00+02:00' });
        const conversion = await report(body);
        assert.deepEqual(Object.keys(conversion).sort(), [
          'attribution',
          'createdAt',
          'currency',
          'id',
          'items',
          'object',
          'orderCreatedAt',
          'orderId',
          'sessionId',
          'source',
          'status',
          'storeId',
          'totalCents',
          'updatedAt',
          'visitorId',
        ]);
        assert.match(conversion.id, /^conv_[0-9A-Za-z]{24}$/);
        assert.equal(conversion.object, 'conversion');
        assert.equal(conversion.orderCreatedAt, '2025-03-01T08:00:00.000Z', 'the offset is honoured; shown in UTC');
        assert.equal(conversion.source, 'server');
        assert.equal(conversion.status, 'completed');
        assert.equal(conversion.totalCents, 5_000);
        assert.deepEqual(conversion.items, body.items);
        assert.equal(conversion.attribution, null);
        const dateOnly = await report(
          order({ orderCreatedAt: '2025-03-02', visitorId: '', sessionId: '', items: [], totalCents: 0 }),
        );
        assert.equal(dateOnly.orderCreatedAt, '2025-03-02T00:00:00.000Z', 'a date alone is midnight UTC');
        assert.equal(dateOnly.visitorId, null, 'empty tracking ids are accepted and stored as unknown');
        assert.deepEqual(dateOnly.items, [], 'a lead has no items');
      });

      it('takes only a valid, active conversion key', async () => {
        const cases: Array<[string | null, string]> = [
          [null, 'missing_api_key'],
          [`viz_${'x'.repeat(32)}`, 'invalid_api_key'],
          [shop.apiKey, 'invalid_api_key'],
          ['two words', 'malformed_authorization'],
        ];
        for (const [key, code] of cases) {
          const error = await errorOf(await b.postOrder(order(), key), 401);
          assert.equal(error.type, 'authentication_error');
          assert.equal(error.code, code, `${key} → ${error.message}`);
        }
        assert.match((await errorOf(await b.postOrder(order(), shop.apiKey), 401)).message, /conversion key/);
        const revoked = await b.g.app.tenants.createKey(shop.organizationId, 'conversion', 'old');
        assert.equal((await b.postOrder(order(), revoked.key)).status, 200);
        await b.g.app.tenants.revokeKey(shop.organizationId, revoked.record.id);
        const error = await errorOf(await b.postOrder(order(), revoked.key), 401);
        assert.deepEqual([error.type, error.code], ['authentication_error', 'api_key_revoked']);
      });

      it('refuses invalid bodies field by field, naming the field', async () => {
        const item = { productId: 'sku-1', quantity: 2, priceCents: 2_000, totalCents: 4_000 };
        const { orderId: _orderId, ...withoutOrderId } = order();
        const { visitorId: _visitorId, ...withoutVisitorId } = order();
        const { items: _items, ...withoutItems } = order();
        const cases: Array<[unknown, string]> = [
          [order({ platform: 'shopify' }), 'platform'],
          [order({ status: 'shipped' }), 'status'],
          [order({ currency: 'usd' }), 'currency'],
          [order({ currency: 'DOLLAR' }), 'currency'],
          [order({ totalCents: 10.5 }), 'totalCents'],
          [order({ totalCents: '5000' }), 'totalCents'],
          [order({ totalCents: -1 }), 'totalCents'],
          [order({ items: [item, { ...item, totalCents: 3_999 }] }), 'items[1].totalCents'],
          [order({ items: [{ ...item, priceCents: 19.99, totalCents: 39.98 }] }), 'items[0].priceCents'],
          [order({ items: [{ ...item, quantity: 0, totalCents: 0 }] }), 'items[0].quantity'],
          [order({ items: [{ ...item, productId: '' }] }), 'items[0].productId'],
          // It would lose digits (…567000) and never match the generation's id.
          // biome-ignore lint/correctness/noPrecisionLoss: an id past Number.MAX_SAFE_INTEGER is what this case sends.
          [order({ items: [{ ...item, productId: 12345678901234567890 }] }), 'items[0].productId'],
          [order({ orderId: '😀'.repeat(201) }), 'orderId'],
          [order({ items: [{ ...item, price: 20 }] }), 'items[0].price'],
          [order({ items: Array.from({ length: 201 }, () => item) }), 'items'],
          [order({ items: 'sku-1' }), 'items'],
          [order({ orderCreatedAt: 'yesterday' }), 'orderCreatedAt'],
          [order({ orderCreatedAt: '2025-02-30T10:00:00Z' }), 'orderCreatedAt'],
          [order({ orderCreatedAt: '2025-03-01T10:00:00' }), 'orderCreatedAt'],
          [order({ orderCreatedAt: 1740823200000 }), 'orderCreatedAt'],
          [order({ orderId: 'x'.repeat(201) }), 'orderId'],
          [withoutOrderId, 'orderId'],
          [withoutVisitorId, 'visitorId'],
          [withoutItems, 'items'],
          [order({ sessionId: null }), 'sessionId'],
          [order({ customerEmail: 'a@b.example' }), 'customerEmail'],
        ];
        for (const [body, param] of cases) {
          const error = await errorOf(await b.postOrder(body, shop.conversionKey), 400);
          assert.equal(error.type, 'invalid_request_error');
          assert.equal(error.param, param, `${JSON.stringify(body).slice(0, 160)} → ${error.message}`);
        }
        assert.equal((await errorOf(await b.postOrder('{"orderId":', shop.conversionKey), 400)).code, 'invalid_json');
        // Limits count characters: 200 emoji are 400 UTF-16 units.
        assert.equal(
          (
            await b.postOrder(
              order({ orderId: '😀'.repeat(200), items: [{ ...item, productId: 9007199254740991 }] }),
              shop.conversionKey,
            )
          ).status,
          200,
        );
        const plain = await fetch(b.url('/api/webhooks/orders'), {
          method: 'POST',
          headers: { authorization: `Bearer ${shop.conversionKey}`, 'content-type': 'text/plain' },
          body: JSON.stringify(order()),
        });
        assert.equal((await errorOf(plain, 415)).code, 'unsupported_media_type');
      });

      it("refuses another organization's store or organization id with 403", async () => {
        const foreignStore = await errorOf(
          await b.postOrder(order({ storeId: other.storeId }), shop.conversionKey),
          403,
        );
        assert.deepEqual([foreignStore.type, foreignStore.param], ['authorization_error', 'storeId']);
        const unknownStore = await errorOf(
          await b.postOrder(order({ storeId: 'store_unknown' }), shop.conversionKey),
          403,
        );
        assert.equal(unknownStore.param, 'storeId');
        const foreignOrg = await errorOf(
          await b.postOrder(order({ organizationId: other.organizationId }), shop.conversionKey),
          403,
        );
        assert.deepEqual([foreignOrg.type, foreignOrg.param], ['authorization_error', 'organizationId']);
        const theirKey = await errorOf(await b.postOrder(order(), other.conversionKey), 403);
        assert.equal(theirKey.param, 'organizationId');
      });

      it('counts a re-reported order once, updates its status and fills what was missing', async () => {
        const generation = await b.visualize(widgetId, 'visitor-dup', 'session-dup', ['sku-1']);
        const first = order({ visitorId: '', sessionId: '', items: [], totalCents: 4_000 });
        const recorded = await report(first);
        assert.equal(recorded.attribution, null, 'no ids, nothing to attribute by');

        const enriched = await report({
          ...first,
          status: 'processing',
          visitorId: 'visitor-dup',
          sessionId: 'session-dup',
          items: [{ productId: 'sku-1', quantity: 1, priceCents: 4_000, totalCents: 4_000 }],
        });
        assert.equal(enriched.id, recorded.id, 'the same conversion');
        assert.equal(enriched.status, 'processing');
        assert.equal(enriched.visitorId, 'visitor-dup');
        assert.equal(enriched.items.length, 1);
        assert.deepEqual(
          enriched.attribution,
          { generationId: generation.id, attributedRevenueCents: 4_000, attributedItems: ['sku-1'] },
          're-attributed once the ids arrived',
        );

        const again = await report({ ...first, status: 'completed', visitorId: '', sessionId: '', items: [] });
        assert.equal(again.status, 'completed');
        assert.deepEqual(
          [again.visitorId, again.sessionId],
          ['visitor-dup', 'session-dup'],
          'empty ids erase no known id',
        );
        assert.equal(again.items.length, 1, 'items once known are kept');
        assert.deepEqual(again.attribution, enriched.attribution, 'attribution kept');
        const listed = (await b.conversions(shop.apiKey, `?storeId=${shop.storeId}&limit=100`)).data.filter(
          (conversion) => conversion.orderId === first.orderId,
        );
        assert.equal(listed.length, 1, 'one conversion for the order');

        const refunded = await report({ ...first, status: 'refunded' });
        assert.equal(refunded.status, 'refunded');
        assert.deepEqual(
          refunded.attribution,
          enriched.attribution,
          'a refunded order keeps its attribution for the record',
        );
      });

      it("lets the order webhook's ids win over made-up ones a keyless browser report sent, whichever arrives first", async () => {
        const real = await b.visualize(widgetId, 'v-shopper', 's-shopper', ['sku-1']);
        const decoy = await b.visualize(widgetId, 'v-made-up', 's-made-up', ['sku-1']);
        const fromServer = (orderId: string) => order({ orderId, visitorId: 'v-shopper', sessionId: 's-shopper' });
        const expected = {
          visitorId: 'v-shopper',
          sessionId: 's-shopper',
          attribution: { generationId: real.id, attributedRevenueCents: 4_000, attributedItems: ['sku-1'] },
        };
        const identity = (conversion: {
          visitorId: string | null;
          sessionId: string | null;
          attribution: unknown;
        }) => ({
          visitorId: conversion.visitorId,
          sessionId: conversion.sessionId,
          attribution: conversion.attribution,
        });

        const browserFirst = nextOrderId();
        await track(shop.storeId, 'v-made-up', 's-made-up', { orderId: browserFirst });
        assert.equal(
          (await b.conversion(shop.apiKey, shop.storeId, browserFirst)).attribution?.generationId,
          decoy.id,
          'pinned to the made-up visitor until the shop reports',
        );
        assert.deepEqual(
          identity(await report(fromServer(browserFirst))),
          expected,
          "the server's ids replace the browser's and attribution is recomputed",
        );

        const voided = nextOrderId();
        await track(shop.storeId, 'v-nobody', 's-nobody', { orderId: voided });
        assert.equal((await b.conversion(shop.apiKey, shop.storeId, voided)).attribution, null);
        assert.deepEqual(
          identity(await report(fromServer(voided))),
          expected,
          'an attribution voided by made-up ids comes back',
        );

        const serverFirst = nextOrderId();
        assert.deepEqual(identity(await report(fromServer(serverFirst))), expected);
        await track(shop.storeId, 'v-made-up', 's-made-up', { orderId: serverFirst });
        const kept = await b.conversion(shop.apiKey, shop.storeId, serverFirst);
        assert.deepEqual(identity(kept), expected, 'a later browser report changes no id the server sent');
        assert.equal(kept.source, 'both');

        // The shop's own correction: a later server report with other ids replaces them.
        const corrected = await report({ ...fromServer(serverFirst), visitorId: 'v-made-up', sessionId: 's-made-up' });
        assert.deepEqual(
          [corrected.visitorId, corrected.sessionId, corrected.attribution?.generationId],
          ['v-made-up', 's-made-up', decoy.id],
        );
      });

      it('ends concurrent server and browser reports of one order as one conversion', async () => {
        const body = order({ visitorId: 'visitor-race', sessionId: 'session-race' });
        const responses = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            i % 2 === 0
              ? b.postOrder(body, shop.conversionKey)
              : b.collect({
                  type: '$conversion',
                  storeId: shop.storeId,
                  visitorId: 'visitor-race',
                  sessionId: 'session-race',
                  props: { orderId: body.orderId, totalCents: 1 },
                }),
          ),
        );
        assert.deepEqual(responses.map((response) => response.status).sort(), [
          ...Array(6).fill(200),
          ...Array(6).fill(202),
        ]);
        const listed = (await b.conversions(shop.apiKey, `?storeId=${shop.storeId}&limit=100`)).data.filter(
          (conversion) => conversion.orderId === body.orderId,
        );
        assert.equal(listed.length, 1);
        assert.equal(listed[0]!.source, 'both');
        assert.equal(listed[0]!.totalCents, 5_000, "the server's total wins");
      });
    });

    describe('browser collection', () => {
      it('accepts text/plain from any page, with CORS, and applies the spec defaults', async () => {
        const orderId = nextOrderId();
        const response = await b.collect(
          {
            type: '$conversion',
            storeId: shop.storeId,
            visitorId: 'v-plain',
            sessionId: 's-plain',
            props: { orderId },
          },
          'text/plain;charset=UTF-8',
          'https://anywhere.example',
        );
        assert.equal(response.status, 202);
        assert.equal(response.headers.get('access-control-allow-origin'), '*');
        const conversion = await b.conversion(shop.apiKey, shop.storeId, orderId);
        assert.equal(conversion.totalCents, 0);
        assert.equal(conversion.currency, 'USD');
        assert.equal(conversion.status, 'completed');
        assert.deepEqual(conversion.items, []);
        assert.equal(conversion.source, 'browser');
        assert.ok(
          Math.abs(Date.parse(conversion.orderCreatedAt) - Date.now()) < 60_000,
          'a browser order happened on arrival',
        );

        const json = await b.collect(
          {
            type: '$conversion',
            storeId: shop.storeId,
            visitorId: 'v-json',
            sessionId: 's-json',
            props: {
              orderId: nextOrderId(),
              totalCents: 1_250,
              currency: 'EUR',
              status: 'pending',
              items: [{ productId: 7, quantity: 1, priceCents: 1_250, totalCents: 1_250 }],
            },
          },
          'application/json',
        );
        assert.equal(json.status, 202);

        const preflight = await fetch(b.url('/api/collect'), {
          method: 'OPTIONS',
          headers: {
            origin: shopOrigin,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'content-type',
          },
        });
        assert.equal(preflight.status, 204);
        assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
        assert.match(preflight.headers.get('access-control-allow-methods')!, /POST/);
        assert.match(preflight.headers.get('access-control-allow-headers')!, /content-type/);
      });

      it('refuses unknown stores and invalid events, readable by the page', async () => {
        const unknown = await b.collect({
          type: '$conversion',
          storeId: 'store_nope',
          visitorId: 'v',
          sessionId: 's',
          props: { orderId: 'o' },
        });
        assert.equal(unknown.headers.get('access-control-allow-origin'), '*', 'errors carry CORS too');
        const notFound = await errorOf(unknown, 404);
        assert.deepEqual([notFound.type, notFound.param], ['not_found_error', 'storeId']);

        const event = (props: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
          type: '$conversion',
          storeId: shop.storeId,
          visitorId: 'v-bad',
          sessionId: 's-bad',
          props,
          ...extra,
        });
        const cases: Array<[unknown, string]> = [
          [event({}), 'props.orderId'],
          [event({ orderId: 'o', currency: 'usd' }), 'props.currency'],
          [event({ orderId: 'o', totalCents: 9.99 }), 'props.totalCents'],
          [event({ orderId: 'o', status: 'paid' }), 'props.status'],
          [
            event({ orderId: 'o', items: [{ productId: 'a', quantity: 2, priceCents: 100, totalCents: 100 }] }),
            'props.items[0].totalCents',
          ],
          [event({ orderId: 'o' }, { visitorId: '' }), 'visitorId'],
          [event({ orderId: 'o' }, { type: '$pageview' }), 'type'],
          [{ type: '$identify', storeId: shop.storeId, visitorId: 'v', sessionId: 's', userId: '' }, 'userId'],
          [
            {
              type: '$identify',
              storeId: shop.storeId,
              visitorId: 'v',
              sessionId: 's',
              userId: 'u',
              traits: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`t${i}`, i])),
            },
            'traits',
          ],
          [
            {
              type: '$identify',
              storeId: shop.storeId,
              visitorId: 'v',
              sessionId: 's',
              userId: 'u',
              traits: { nested: { a: 1 } },
            },
            'traits.nested',
          ],
        ];
        for (const [body, param] of cases) {
          const response = await b.collect(body);
          assert.equal(response.headers.get('access-control-allow-origin'), '*');
          const error = await errorOf(response, 400);
          assert.equal(error.param, param, `${JSON.stringify(body)} → ${error.message}`);
        }
        assert.equal((await errorOf(await b.collect('{"type":'), 400)).code, 'invalid_json');
        assert.equal(
          (await errorOf(await b.collect('a=1', 'application/x-www-form-urlencoded'), 415)).code,
          'unsupported_media_type',
        );
        const huge = JSON.stringify(event({ orderId: 'o', padding: 'x'.repeat(70 * 1024) }));
        assert.equal((await errorOf(await b.collect(huge), 413)).code, 'body_too_large');
      });

      it('links an identified user to the visitor', async () => {
        const response = await b.collect({
          type: '$identify',
          storeId: shop.storeId,
          visitorId: 'v-ident',
          sessionId: 's-ident',
          userId: 'customer-42',
          traits: { plan: 'gold', orders: 3, vip: true },
        });
        assert.equal(response.status, 202);
        const identities = b.g.app.container.cradle.persistence.visitorIdentities;
        const stored = await identities.get(shop.storeId, 'v-ident');
        assert.equal(stored?.userId, 'customer-42');
        assert.deepEqual(stored?.traits, { plan: 'gold', orders: 3, vip: true });
        await b.collect({
          type: '$identify',
          storeId: shop.storeId,
          visitorId: 'v-ident',
          sessionId: 's-ident-2',
          userId: 'customer-43',
        });
        const replaced = await identities.get(shop.storeId, 'v-ident');
        assert.equal(replaced?.userId, 'customer-43', 'the latest identify wins');
        assert.equal(replaced?.createdAt, stored?.createdAt);
      });

      it('merges a browser report and a server report of the same order', async () => {
        const browserFirst = nextOrderId();
        await track(shop.storeId, 'v-merge', 's-merge', {
          orderId: browserFirst,
          totalCents: 999,
          status: 'completed',
          items: [],
        });
        const serverOrder = order({
          orderId: browserFirst,
          visitorId: '',
          sessionId: '',
          status: 'processing',
          orderCreatedAt: '2025-06-01T12:00:00Z',
        });
        const merged = await report(serverOrder);
        assert.equal(merged.source, 'both');
        assert.equal(merged.totalCents, 5_000, 'server wins on totals');
        assert.equal(merged.status, 'processing', 'and on status');
        assert.deepEqual(merged.items, serverOrder.items, 'and on items');
        assert.equal(merged.orderCreatedAt, '2025-06-01T12:00:00.000Z', 'and on the order time');
        assert.equal(merged.visitorId, 'v-merge', "the browser's ids fill the server's empty ones");

        const serverFirst = order({ status: 'completed' });
        await report(serverFirst);
        await track(shop.storeId, 'v-late', 's-late', {
          orderId: serverFirst.orderId,
          totalCents: 1,
          status: 'pending',
          currency: 'EUR',
          items: [],
        });
        const kept = await b.conversion(shop.apiKey, shop.storeId, serverFirst.orderId);
        assert.equal(kept.source, 'both');
        assert.deepEqual(
          [kept.totalCents, kept.currency, kept.status, kept.items.length],
          [5_000, 'USD', 'completed', 1],
          'the browser never overrides the server',
        );
        assert.equal(kept.visitorId, 'visitor-a');
      });
    });

    describe('attribution', () => {
      it('attributes to the latest generation of the visitor; only visualized items count', async () => {
        const older = await b.visualize(widgetId, 'v-attr', 's-attr-1', ['sku-1']);
        const latest = await b.visualize(widgetId, 'v-attr', 's-attr-2', ['sku-2', 42]);
        const conversion = await report(
          order({
            visitorId: 'v-attr',
            sessionId: 's-attr-3',
            items: [
              { productId: 'sku-1', quantity: 1, priceCents: 1_000, totalCents: 1_000 },
              { productId: 'sku-2', quantity: 2, priceCents: 1_500, totalCents: 3_000 },
              { productId: '42', quantity: 1, priceCents: 700, totalCents: 700 },
              { productId: 'sku-9', quantity: 1, priceCents: 300, totalCents: 300 },
            ],
          }),
        );
        assert.notEqual(older.id, latest.id);
        assert.deepEqual(conversion.attribution, {
          generationId: latest.id,
          attributedRevenueCents: 3_700,
          attributedItems: ['sku-2', '42'],
        });

        const lead = await report(order({ visitorId: 'v-attr', sessionId: '', items: [], totalCents: 0 }));
        assert.deepEqual(
          lead.attribution,
          { generationId: latest.id, attributedRevenueCents: 0, attributedItems: [] },
          'a lead is attributed with no revenue',
        );
      });

      it('falls back to the session id when no generation has the visitor id', async () => {
        const generation = await b.visualize(widgetId, 'v-session-1', 's-shared', ['sku-5']);
        const conversion = await report(
          order({
            visitorId: 'v-other-device',
            sessionId: 's-shared',
            items: [{ productId: 'sku-5', quantity: 1, priceCents: 900, totalCents: 900 }],
          }),
        );
        assert.equal(conversion.attribution?.generationId, generation.id);
        assert.equal(conversion.attribution?.attributedRevenueCents, 900);
        const browser = nextOrderId();
        await track(shop.storeId, 'v-other-device-2', 's-shared', { orderId: browser });
        assert.equal((await b.conversion(shop.apiKey, shop.storeId, browser)).attribution?.generationId, generation.id);
      });

      it('counts only generations within the window before the order (orderCreatedAt, not arrival)', async () => {
        const generation = await b.visualize(widgetId, 'v-window', 's-window', ['sku-1']);
        const made = Date.parse(generation.createdAt);
        const at = (ms: number) => new Date(made + ms).toISOString();
        const within = await report(
          order({ visitorId: 'v-window', sessionId: 's-window', orderCreatedAt: at(7 * day - 60_000) }),
        );
        assert.equal(
          within.attribution?.generationId,
          generation.id,
          'a late report of an order placed within 7 days still attributes',
        );
        const eightDays = await report(
          order({ visitorId: 'v-window', sessionId: 's-window', orderCreatedAt: at(8 * day) }),
        );
        assert.equal(eightDays.attribution, null, '8 days later is outside the 7-day window');
        const before = await report(
          order({ visitorId: 'v-window', sessionId: 's-window', orderCreatedAt: at(-60_000) }),
        );
        assert.equal(before.attribution, null, 'an order placed before the visualization is not earned by it');
      });

      it('does not attribute a browser purchase 8 days after the visualization (clock injected)', async () => {
        try {
          b.setClockOffset(-8 * day);
          const old = await b.visualize(widgetId, 'v-clock', 's-clock', ['sku-1']);
          b.setClockOffset(0);
          const late = nextOrderId();
          await track(shop.storeId, 'v-clock', 's-clock', {
            orderId: late,
            totalCents: 100,
            items: [{ productId: 'sku-1', quantity: 1, priceCents: 100, totalCents: 100 }],
          });
          assert.equal((await b.conversion(shop.apiKey, shop.storeId, late)).attribution, null);

          b.setClockOffset(-6 * day);
          const recent = await b.visualize(widgetId, 'v-clock-2', 's-clock-2', ['sku-1']);
          b.setClockOffset(0);
          const inTime = nextOrderId();
          await track(shop.storeId, 'v-clock-2', 's-clock-2', {
            orderId: inTime,
            totalCents: 100,
            items: [{ productId: 'sku-1', quantity: 1, priceCents: 100, totalCents: 100 }],
          });
          const attributed = await b.conversion(shop.apiKey, shop.storeId, inTime);
          assert.equal(attributed.attribution?.generationId, recent.id);
          assert.notEqual(old.id, recent.id);
        } finally {
          b.setClockOffset(0);
        }
      });

      it("honours the store's window, and never crosses stores or counts failed generations", async () => {
        const shortStore = await b.g.app.tenants.createStore(shop.organizationId, {
          name: 'Short window',
          attributionWindowDays: 1,
        });
        const shortWidget = await b.createWidget(shop.apiKey, { storeId: shortStore.id });
        const generation = await b.visualize(shortWidget.id, 'v-short', 's-short', ['sku-1']);
        const made = Date.parse(generation.createdAt);
        const twoDays = await report(
          order({
            storeId: shortStore.id,
            visitorId: 'v-short',
            sessionId: 's-short',
            orderCreatedAt: new Date(made + 2 * day).toISOString(),
          }),
        );
        assert.equal(twoDays.attribution, null, 'a 1-day window');
        const sameDay = await report(
          order({
            storeId: shortStore.id,
            visitorId: 'v-short',
            sessionId: 's-short',
            orderCreatedAt: new Date(made + 3_600_000).toISOString(),
          }),
        );
        assert.equal(sameDay.attribution?.generationId, generation.id);

        await b.visualize(shortWidget.id, 'v-cross', 's-cross', ['sku-1']);
        const crossStore = await report(order({ visitorId: 'v-cross', sessionId: 's-cross' }));
        assert.equal(crossStore.attribution, null, "another store's generation never attributes");

        const failed = await b.visualize(widgetId, 'v-failed', 's-failed', ['sku-1'], {
          image: `${b.g.host.url}/missing`,
        });
        assert.equal(failed.status, 'failed');
        const afterFailure = await report(order({ visitorId: 'v-failed', sessionId: 's-failed' }));
        assert.equal(afterFailure.attribution, null, 'only complete generations count');
      });
    });

    describe('reporting', () => {
      it('summarizes a store: visualizations, visitors, conversions, attributed revenue per currency, rates', async () => {
        const store = await b.g.app.tenants.createStore(shop.organizationId, { name: 'Summary' });
        const widget = await b.createWidget(shop.apiKey, { storeId: store.id });
        const from = new Date(Date.now() - 60_000).toISOString();
        await b.visualize(widget.id, 'sv-1', 'ss-1', ['sku-1']);
        await b.visualize(widget.id, 'sv-2', 'ss-2', ['sku-2']);
        await b.visualize(widget.id, 'sv-2', 'ss-2b', ['sku-3']);
        const inStore = (overrides: Record<string, unknown>) => order({ storeId: store.id, ...overrides });
        await report(
          inStore({
            visitorId: 'sv-1',
            sessionId: 'ss-1',
            currency: 'USD',
            totalCents: 3_500,
            items: [{ productId: 'sku-1', quantity: 1, priceCents: 3_000, totalCents: 3_000 }],
          }),
        );
        const euro = inStore({
          visitorId: 'sv-2',
          sessionId: 'ss-2',
          currency: 'EUR',
          totalCents: 2_500,
          items: [
            { productId: 'sku-3', quantity: 1, priceCents: 2_000, totalCents: 2_000 },
            { productId: 'x', quantity: 1, priceCents: 500, totalCents: 500 },
          ],
        });
        await report(euro);
        await track(store.id, 'sv-3', 'ss-3', { orderId: nextOrderId(), totalCents: 1_000 });
        assert.equal(
          (
            await b.collect({
              type: '$identify',
              storeId: store.id,
              visitorId: 'sv-4',
              sessionId: 'ss-4',
              userId: 'u-4',
            })
          ).status,
          202,
        );
        const cancelled = inStore({ visitorId: 'sv-5', sessionId: 'ss-5', status: 'cancelled' });
        await report(cancelled);
        const to = new Date(Date.now() + 60_000).toISOString();
        const query = `?storeId=${store.id}&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;

        const before = await b.summary(shop.apiKey, query);
        assert.deepEqual(before, {
          object: 'analytics_summary',
          storeId: store.id,
          from: new Date(from).toISOString(),
          to: new Date(to).toISOString(),
          visualizations: 3,
          uniqueVisitorsVisualized: 2,
          conversions: 3,
          attributedConversions: 2,
          attributedRevenue: { EUR: 2_000, USD: 3_000 },
          conversionRate: { visualized: 1, notVisualized: 0.3333 },
          visitors: { visualized: 2, visualizedConverted: 2, notVisualized: 3, notVisualizedConverted: 1 },
        });

        await report({ ...euro, status: 'refunded' });
        const afterRefund = await b.summary(shop.apiKey, query);
        assert.equal(afterRefund.conversions, 2, 'a refunded order no longer counts');
        assert.equal(afterRefund.attributedConversions, 1);
        assert.deepEqual(afterRefund.attributedRevenue, { USD: 3_000 }, 'nor does its revenue');
        assert.deepEqual(afterRefund.conversionRate, { visualized: 0.5, notVisualized: 0.3333 });

        const empty = await b.summary(shop.apiKey, `?storeId=${store.id}&from=2020-01-01&to=2020-02-01`);
        assert.deepEqual(
          [
            empty.visualizations,
            empty.uniqueVisitorsVisualized,
            empty.conversions,
            empty.attributedConversions,
            empty.attributedRevenue,
            empty.conversionRate,
          ],
          [0, 0, 0, 0, {}, { visualized: null, notVisualized: null }],
        );
        const defaults = await b.summary(shop.apiKey, `?storeId=${store.id}`);
        assert.equal(Date.parse(defaults.to) - Date.parse(defaults.from), 30 * day, 'the last 30 days by default');
        assert.equal(defaults.visualizations, 3);

        assert.equal((await errorOf(await b.v1(shop.apiKey, '/v1/analytics/summary'), 400)).param, 'storeId');
        assert.equal(
          (await errorOf(await b.v1(shop.apiKey, `/v1/analytics/summary?storeId=${other.storeId}`), 404)).param,
          'storeId',
        );
        assert.equal(
          (
            await errorOf(
              await b.v1(shop.apiKey, `/v1/analytics/summary?storeId=${store.id}&from=2025-02-01&to=2025-01-01`),
              400,
            )
          ).param,
          'to',
        );
        assert.equal(
          (await errorOf(await b.v1(shop.apiKey, `/v1/analytics/summary?storeId=${store.id}&from=soon`), 400)).param,
          'from',
        );
        assert.equal(
          (await errorOf(await b.v1(shop.conversionKey, `/v1/analytics/summary?storeId=${store.id}`), 401)).type,
          'authentication_error',
        );
      });

      it('lists conversions newest first by order time, filtered by store and time, with cursors', async () => {
        const store = await b.g.app.tenants.createStore(shop.organizationId, { name: 'Listing' });
        const times = [
          '2025-01-01T00:00:00Z',
          '2025-01-02T00:00:00Z',
          '2025-01-03T00:00:00Z',
          '2025-01-04T00:00:00Z',
          '2025-01-05T00:00:00Z',
        ];
        const orderIds: string[] = [];
        for (const orderCreatedAt of times) {
          const body = order({ storeId: store.id, orderCreatedAt });
          orderIds.push(body.orderId);
          assert.equal((await b.postOrder(body, shop.conversionKey)).status, 200);
        }
        const page1 = await b.conversions(shop.apiKey, `?storeId=${store.id}&limit=2`);
        assert.equal(page1.object, 'list');
        assert.equal(page1.has_more, true);
        assert.deepEqual(
          page1.data.map((conversion) => conversion.orderId),
          [orderIds[4], orderIds[3]],
        );
        const page2 = await b.conversions(
          shop.apiKey,
          `?storeId=${store.id}&limit=2&starting_after=${page1.data[1]!.id}`,
        );
        assert.deepEqual(
          page2.data.map((conversion) => conversion.orderId),
          [orderIds[2], orderIds[1]],
        );
        const page3 = await b.conversions(
          shop.apiKey,
          `?storeId=${store.id}&limit=2&starting_after=${page2.data[1]!.id}`,
        );
        assert.deepEqual([page3.data.map((conversion) => conversion.orderId), page3.has_more], [[orderIds[0]], false]);

        const ranged = await b.conversions(shop.apiKey, `?storeId=${store.id}&from=2025-01-02&to=2025-01-04`);
        assert.deepEqual(
          ranged.data.map((conversion) => conversion.orderId),
          [orderIds[2], orderIds[1]],
          'from inclusive, to exclusive',
        );

        const theirs = await b.conversions(other.apiKey, '?limit=100');
        assert.ok(
          !theirs.data.some((conversion) => orderIds.includes(conversion.orderId)),
          'never another organization’s',
        );
        assert.equal(
          (await errorOf(await b.v1(other.apiKey, `/v1/conversions?storeId=${store.id}`), 404)).param,
          'storeId',
        );
        assert.equal((await errorOf(await b.v1(shop.apiKey, '/v1/conversions?limit=0'), 400)).param, 'limit');
        assert.equal((await errorOf(await b.v1(shop.apiKey, '/v1/conversions?from=2025-13-01'), 400)).param, 'from');
      });
    });
  });
}

describe('browser collection limits', () => {
  let b: BrowserApp;
  before(async () => {
    b = await startBrowserApp({
      config: {
        conversions: { collectPerIp: { perSecond: 0.01, burst: 8 }, collectPerVisitor: { perSecond: 0.01, burst: 3 } },
      },
    });
  });
  after(() => b.close());

  it('answers a flood with 429 and Retry-After, per visitor and per address', async () => {
    const { storeId } = await b.organization();
    const event = (visitorId: string, orderId: string) => ({
      type: '$conversion',
      storeId,
      visitorId,
      sessionId: 's',
      props: { orderId },
    });
    for (let i = 0; i < 3; i++) assert.equal((await b.collect(event('flooder', `o-${i}`))).status, 202);
    const limited = await b.collect(event('flooder', 'o-3'));
    assert.equal(limited.headers.get('access-control-allow-origin'), '*');
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    const error = await errorOf(limited, 429);
    assert.deepEqual([error.type, error.code], ['rate_limit_error', 'rate_limited']);
    assert.match(error.message, /visitor/);

    for (let i = 0; i < 4; i++)
      assert.equal(
        (await b.collect(event(`visitor-${i}`, `p-${i}`))).status,
        202,
        'other visitors have their own budget',
      );
    const byAddress = await errorOf(await b.collect(event('visitor-9', 'p-9')), 429);
    assert.match(byAddress.message, /address/, 'but one address has a budget of its own');
  });
});
