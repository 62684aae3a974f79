import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Persistence } from '../plugin.ts';
import { testIds } from './ids.ts';
import type { PersistenceSuiteContext } from './persistence-context.ts';
import { webhookEndpointRecord } from './records.ts';

/** 2026-03-01T00:00:00Z. */
const day0 = Date.UTC(2026, 2, 1);

/**
 * Delivery (`DeliveryRepositories`), part of the persistence contract: the outbox events (in
 * creation order, as the event stream reads them; a generation's, newest first), the webhook
 * endpoints and the deliveries read with their endpoint and event in one call.
 */
export function persistenceDeliveryContract(context: PersistenceSuiteContext) {
  const { tenants } = context;
  describe('delivery: events, endpoints and deliveries', () => {
    let store!: Persistence;
    before(() => {
      store = context.store();
    });

    it("reads a delivery with its endpoint (deleted or not) and its event in one call, the event only from the endpoint's organization", async () => {
      const { organization } = await tenants().createOrganization({ name: 'Deliveries', credits: 0 });
      const { organization: stranger } = await tenants().createOrganization({ name: 'Stranger', credits: 0 });
      const now = Date.now();
      const endpoint = webhookEndpointRecord(organization.id, {
        previousSecrets: [
          { secret: 'whsec_bmV3ZXI=', expiresAt: now + 2 },
          { secret: 'whsec_b2xkZXI=', expiresAt: now + 1 },
        ],
        createdAt: now,
        updatedAt: now,
      });
      await store.webhookEndpoints.create(endpoint);
      const event = {
        id: testIds.id('evt_'),
        organizationId: organization.id,
        type: 'generation.completed',
        body: '{"id":"evt"}',
        createdAt: now,
      };
      const foreignEvent = { ...event, id: testIds.id('evt_'), organizationId: stranger.id };
      await store.events.append(event);
      await store.events.append(foreignEvent);
      const delivery = (eventId: string) => ({
        id: testIds.id('whd_'),
        eventId,
        endpointId: endpoint.id,
        status: 'pending' as const,
        attemptCount: 0,
        nextAttemptAt: now,
        lastError: null,
        createdAt: now,
        updatedAt: now,
      });
      const own = delivery(event.id);
      const crossed = delivery(foreignEvent.id);
      await store.deliveries.create(own);
      await store.deliveries.create(crossed);

      assert.deepEqual(await store.deliveries.forAttempt(own.id), {
        delivery: own,
        endpoint: { ...endpoint, deleted: false },
        event,
      });
      assert.equal(
        (await store.deliveries.forAttempt(crossed.id))?.event,
        null,
        "another organization's event is not read",
      );
      assert.equal(await store.deliveries.forAttempt(testIds.id('whd_')), null);
      await store.webhookEndpoints.delete(organization.id, endpoint.id, now + 1);
      assert.equal((await store.deliveries.forAttempt(own.id))?.endpoint?.deleted, true);
    });

    describe('events in creation order (the event stream reads them so)', () => {
      it("reads an organization's events from a time or just after an event, oldest first, of the types asked for, up to a limit", async () => {
        const { organization } = await tenants().createOrganization({ name: 'Event order', credits: 0 });
        const { organization: stranger } = await tenants().createOrganization({ name: 'Event stranger', credits: 0 });
        const base = 1_700_000_000_000;
        const event = (
          id: string,
          createdAt: number,
          type = 'generation.completed',
          organizationId = organization.id,
        ) => ({
          id,
          organizationId,
          type,
          body: JSON.stringify({ id, type }),
          createdAt,
        });
        // Appended out of creation order, as concurrent transactions commit; two share a millisecond.
        const events = [
          event('evt_order_c', base + 20),
          event('evt_order_a', base),
          event('evt_order_e', base + 30, 'generation.failed'),
          event('evt_order_b2', base + 10),
          event('evt_order_b1', base + 10, 'generation.failed'),
        ];
        for (const item of events) await store.events.append(item);
        await store.events.append(event('evt_order_foreign', base + 15, 'generation.completed', stranger.id));
        const ids = (found: Array<{ id: string }>) => found.map((item) => item.id);

        assert.deepEqual(ids(await store.events.since(organization.id, { from: { createdAt: base }, limit: 10 })), [
          'evt_order_a',
          'evt_order_b1',
          'evt_order_b2',
          'evt_order_c',
          'evt_order_e',
        ]);
        assert.deepEqual(ids(await store.events.since(organization.id, { from: { createdAt: base + 10 }, limit: 2 })), [
          'evt_order_b1',
          'evt_order_b2',
        ]);
        assert.deepEqual(
          ids(
            await store.events.since(organization.id, {
              from: { createdAt: base + 10, afterId: 'evt_order_b1' },
              limit: 10,
            }),
          ),
          ['evt_order_b2', 'evt_order_c', 'evt_order_e'],
        );
        assert.deepEqual(
          ids(
            await store.events.since(organization.id, {
              from: { createdAt: base + 10, afterId: 'evt_order_b2' },
              limit: 10,
            }),
          ),
          ['evt_order_c', 'evt_order_e'],
        );
        assert.deepEqual(
          ids(
            await store.events.since(organization.id, {
              from: { createdAt: base },
              types: ['generation.failed'],
              limit: 10,
            }),
          ),
          ['evt_order_b1', 'evt_order_e'],
        );
        assert.deepEqual(
          await store.events.since(organization.id, { from: { createdAt: base }, types: [], limit: 10 }),
          [],
        );
        assert.deepEqual(await store.events.since(organization.id, { from: { createdAt: base + 31 }, limit: 10 }), []);
        assert.deepEqual(await store.events.since(stranger.id, { from: { createdAt: base }, limit: 10 }), [
          event('evt_order_foreign', base + 15, 'generation.completed', stranger.id),
        ]);
        // The whole event comes back, body bytes and all.
        assert.deepEqual(
          (await store.events.since(organization.id, { from: { createdAt: base + 30 }, limit: 1 }))[0],
          events[2],
        );
      });
    });

    it("lists a generation's events, newest first, only the organization's", async () => {
      const store = context.store();
      const { organization } = await context.tenants().createOrganization({ name: 'Generation events', credits: 0 });
      const { organization: stranger } = await context
        .tenants()
        .createOrganization({ name: 'Generation events stranger', credits: 0 });
      const event = (
        id: string,
        generationId: string | undefined,
        createdAt: number,
        organizationId = organization.id,
      ) => ({
        id,
        organizationId,
        type: 'generation.completed',
        body: JSON.stringify({ id }),
        createdAt,
        ...(generationId === undefined ? {} : { generationId }),
      });
      const mine = [event('evt_gen_a1', 'agen_events_a', day0), event('evt_gen_a2', 'agen_events_a', day0 + 1)];
      for (const item of [
        ...mine,
        event('evt_gen_b', 'agen_events_b', day0),
        event('evt_gen_none', undefined, day0),
        event('evt_gen_foreign', 'agen_events_a', day0, stranger.id),
      ]) {
        await store.events.append(item);
      }
      assert.deepEqual(
        await store.events.list(organization.id, { limit: 10, generationId: 'agen_events_a' }),
        [...mine].reverse(),
      );
      assert.deepEqual(
        await store.events.list(organization.id, {
          limit: 1,
          generationId: 'agen_events_a',
          startingAfter: 'evt_gen_a2',
        }),
        [mine[0]],
      );
      assert.deepEqual(await store.events.list(organization.id, { limit: 10, generationId: 'agen_unknown' }), []);
      assert.deepEqual((await store.events.get(organization.id, 'evt_gen_none'))?.generationId, undefined);
    });
  });
}
