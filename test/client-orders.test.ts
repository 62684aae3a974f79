import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  AuthenticationError,
  AuthorizationError,
  createClient,
  type OrderReport,
  type VisualizerClient,
} from '../clients/node/src/index.ts';
import { startTestApp, type TestApp } from './support/app.ts';

describe('@visualizer/client reports orders', () => {
  let app: TestApp;
  let client: VisualizerClient;
  let shop: { storeId: string; organizationId: string; apiKey: string; conversionKey: string };

  before(async () => {
    app = await startTestApp();
    const created = await app.tenants.createOrganization({ name: 'Order shop', credits: 10 });
    shop = {
      storeId: created.store.id,
      organizationId: created.organization.id,
      apiKey: created.apiKey.key,
      conversionKey: created.conversionKey.key,
    };
    client = createClient({ apiKey: shop.apiKey, conversionKey: shop.conversionKey, baseUrl: app.url });
  });
  after(() => app.close());

  const order = (orderId: string, overrides: Partial<OrderReport> = {}): OrderReport => ({
    orderId,
    storeId: shop.storeId,
    organizationId: shop.organizationId,
    visitorId: 'visitor-1',
    sessionId: 'session-1',
    totalCents: 4_000,
    currency: 'USD',
    status: 'completed',
    orderCreatedAt: new Date('2026-01-02T10:00:00Z'),
    items: [{ productId: 'sku-1', quantity: 2, priceCents: 2_000, totalCents: 4_000 }],
    ...overrides,
  });

  it('reports an order with the conversion key and finds it in GET /v1/conversions', async () => {
    assert.deepEqual(await client.conversions.report(order('order-1')), { success: true });
    const { data } = await client.conversions.list({ storeId: shop.storeId });
    const conversion = data.find((item) => item.orderId === 'order-1');
    assert.ok(conversion);
    assert.equal(conversion.source, 'server');
    assert.equal(conversion.totalCents, 4_000);
    assert.equal(conversion.orderCreatedAt, '2026-01-02T10:00:00.000Z');
    assert.deepEqual(conversion.items, [{ productId: 'sku-1', quantity: 2, priceCents: 2_000, totalCents: 4_000 }]);
  });

  it('updates an order reported again', async () => {
    await client.conversions.report(order('order-2'));
    await client.conversions.report(order('order-2', { status: 'refunded' }));
    const matching = [];
    for await (const conversion of client.paginate('/v1/conversions', { storeId: shop.storeId }))
      if (conversion.orderId === 'order-2') matching.push(conversion);
    assert.equal(matching.length, 1, 'one conversion per order');
    assert.equal(matching[0]!.status, 'refunded');
  });

  it('pages through conversions', async () => {
    for (const id of ['order-3', 'order-4', 'order-5']) await client.conversions.report(order(id));
    const orderIds: string[] = [];
    for await (const conversion of client.paginate('/v1/conversions', { storeId: shop.storeId, limit: 1 }))
      orderIds.push(conversion.orderId);
    assert.deepEqual([...orderIds].sort(), ['order-1', 'order-2', 'order-3', 'order-4', 'order-5']);
  });

  it('surfaces refusals as typed errors naming the field', async () => {
    await assert.rejects(
      client.conversions.report(order('order-6', { storeId: 'store_000000000000000000000000' })),
      (error: unknown) => {
        assert.ok(error instanceof AuthorizationError);
        assert.equal(error.code, 'store_not_allowed');
        assert.equal(error.param, 'storeId');
        return true;
      },
    );
    await assert.rejects(
      client.conversions.report(order('order-6'), { conversionKey: `viz_${'0'.repeat(32)}` }),
      AuthenticationError,
    );
  });

  it('needs a conversion key, and refuses one given as the API key', async () => {
    const secretOnly = createClient({ apiKey: shop.apiKey, baseUrl: app.url });
    await assert.rejects(secretOnly.conversions.report(order('order-7')), TypeError);
    assert.throws(() => createClient({ apiKey: shop.conversionKey, baseUrl: app.url }), TypeError);
    // A checkout server may hold only the conversion key.
    const checkout = createClient({ conversionKey: shop.conversionKey, baseUrl: app.url });
    assert.deepEqual(await checkout.conversions.report(order('order-7')), { success: true });
  });
});
