import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient, type Visitor, type VisitorErasure, type VisualizerClient } from '../clients/node/src/index.ts';
import { startGenerationApp, type GenerationApp } from './support/generation-app.ts';

describe("@visualizer/client: a visitor's data", () => {
  let g: GenerationApp;
  let client: VisualizerClient;
  let shop: { organizationId: string; storeId: string; conversionKey: string };

  before(async () => {
    g = await startGenerationApp();
    const created = await g.app.tenants.createOrganization({ name: 'Client privacy', credits: 10 });
    shop = {
      organizationId: created.organization.id,
      storeId: created.store.id,
      conversionKey: created.conversionKey.key,
    };
    client = createClient({ apiKey: created.apiKey.key, conversionKey: shop.conversionKey, baseUrl: g.app.url });
  });
  after(() => g.close());

  it('looks a visitor up, erases them, waits for the erasure and lists it', async () => {
    // A visitor id with characters a path must encode.
    const visitorId = 'v/ü 1';
    const identified = await fetch(`${g.app.url}/api/collect`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({
        type: '$identify',
        storeId: shop.storeId,
        visitorId,
        sessionId: 's-client',
        userId: 'customer-9',
      }),
    });
    assert.equal(identified.status, 202);
    await client.conversions.report({
      orderId: 'client-1',
      storeId: shop.storeId,
      organizationId: shop.organizationId,
      visitorId,
      sessionId: 's-client',
      totalCents: 500,
      currency: 'EUR',
      status: 'completed',
      orderCreatedAt: new Date(),
      items: [],
    });

    const held: Visitor = await client.visitors.retrieve(visitorId);
    assert.deepEqual(
      [held.visitorId, held.identities.total, held.conversions.total, held.generations.total],
      [visitorId, 1, 1, 0],
    );
    assert.equal(held.identities.data[0]?.userId, 'customer-9');
    // Each kind paged on its own: the path's visitor id encoded, the page's query passed.
    assert.deepEqual(
      (await client.visitors.listIdentities(visitorId, { limit: 1 })).data.map((identity) => identity.userId),
      ['customer-9'],
    );
    assert.deepEqual(
      (await client.visitors.listConversions(visitorId)).data.map((conversion) => conversion.orderId),
      ['client-1'],
    );
    assert.deepEqual(await client.visitors.listGenerations(visitorId, { limit: 5 }), {
      object: 'list',
      data: [],
      has_more: false,
    });

    const pending: VisitorErasure = await client.visitors.erase(visitorId);
    assert.equal(pending.object, 'visitor_erasure');
    let erasure = pending;
    const deadline = Date.now() + 20_000;
    while (erasure.status !== 'complete' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      erasure = await client.visitorErasures.retrieve(pending.id);
    }
    assert.deepEqual([erasure.status, erasure.identitiesDeleted, erasure.conversionsUnlinked], ['complete', 1, 1]);
    assert.equal((await client.visitors.retrieve(visitorId)).identities.total, 0);

    const listed: string[] = [];
    for await (const item of client.paginate('/v1/visitor-erasures', { limit: 1 })) listed.push(item.id);
    assert.deepEqual(listed, [pending.id]);
  });
});
