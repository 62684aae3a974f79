import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { tenantService } from '../../core/services/tenants.ts';
import type { ConversionRecord, GenerationRecord, Persistence } from '../plugin.ts';
import { conversionRecord, generationRecord } from './records.ts';

const dayMs = 86_400_000;
/** 2026-03-01T00:00:00Z: day 20513 since the epoch. */
const day0 = Date.UTC(2026, 2, 1);
const dayNumber = day0 / dayMs;

/**
 * The dashboard's reads: generation lists filtered by status, mode and time, a generation's events,
 * and the per-day figures of the overview (grouped in the database by UTC day). Part of the
 * persistence contract: `persistenceContract` calls it inside its suite, on a migrated database.
 */
export function persistenceAnalyticsContract(context: {
  store: () => Persistence;
  tenants: () => ReturnType<typeof tenantService>;
}) {
  const generation = (organizationId: string, fields: Partial<GenerationRecord>) =>
    generationRecord(organizationId, { createdAt: day0, ...fields });
  const conversion = (organizationId: string, storeId: string, fields: Partial<ConversionRecord>) =>
    conversionRecord(organizationId, storeId, { orderCreatedAt: day0, createdAt: day0, updatedAt: day0, ...fields });
  const attributed = (generationId: string, cents: number) => ({
    generationId,
    attributedRevenueCents: cents,
    attributedItems: [],
  });

  describe('dashboard reads', () => {
    it('counts generations per UTC day and status with the credits charged, for the organization or one store', async () => {
      const store = context.store();
      const { organization, store: shop } = await context
        .tenants()
        .createOrganization({ name: 'Daily generations', credits: 0 });
      const { organization: stranger } = await context
        .tenants()
        .createOrganization({ name: 'Daily stranger', credits: 0 });
      const rows = [
        generation(organization.id, { createdAt: day0, creditsCharged: 2 }),
        generation(organization.id, { createdAt: day0 + dayMs - 1, status: 'failed', creditsCharged: 1 }),
        generation(organization.id, { createdAt: day0 + 5, storeId: shop.id, widgetId: 'wid_1', creditsCharged: 1 }),
        generation(organization.id, {
          createdAt: day0 + 2 * dayMs + 1,
          status: 'processing',
          storeId: shop.id,
          creditsCharged: 4,
        }),
        // Outside [from, to) and another organization's: not counted.
        generation(organization.id, { createdAt: day0 - 1 }),
        generation(organization.id, { createdAt: day0 + 3 * dayMs }),
        generation(stranger.id, { createdAt: day0 + 1 }),
      ];
      for (const row of rows) await store.generations.create(row);
      const range = { from: day0, to: day0 + 3 * dayMs };
      assert.deepEqual(await store.generations.daily({ organizationId: organization.id }, range), [
        { day: dayNumber, status: 'complete', count: 2, credits: 3 },
        { day: dayNumber, status: 'failed', count: 1, credits: 1 },
        { day: dayNumber + 2, status: 'processing', count: 1, credits: 4 },
      ]);
      assert.deepEqual(await store.generations.daily({ organizationId: organization.id, storeId: shop.id }, range), [
        { day: dayNumber, status: 'complete', count: 1, credits: 1 },
        { day: dayNumber + 2, status: 'processing', count: 1, credits: 4 },
      ]);
      assert.deepEqual(
        await store.generations.daily(
          { organizationId: organization.id },
          { from: day0 + 4 * dayMs, to: day0 + 5 * dayMs },
        ),
        [],
      );
    });

    it('counts conversions per UTC day of the order and currency, attributed ones and their revenue, voided ones left out', async () => {
      const store = context.store();
      const { organization, store: shop } = await context
        .tenants()
        .createOrganization({ name: 'Daily conversions', credits: 0 });
      const other = await context.tenants().createStore(organization.id, { name: 'Second shop' });
      const { organization: stranger, store: strangerShop } = await context
        .tenants()
        .createOrganization({ name: 'Daily conversions stranger', credits: 0 });
      const rows = [
        conversion(organization.id, shop.id, { orderCreatedAt: day0 + 10, attribution: attributed('agen_a', 700) }),
        conversion(organization.id, shop.id, { orderCreatedAt: day0 + 20, attribution: attributed('agen_b', 300) }),
        conversion(organization.id, shop.id, { orderCreatedAt: day0 + 30 }),
        conversion(organization.id, shop.id, {
          orderCreatedAt: day0 + 40,
          currency: 'USD',
          attribution: attributed('agen_c', 999),
        }),
        conversion(organization.id, other.id, {
          orderCreatedAt: day0 + dayMs,
          currency: 'USD',
          attribution: attributed('agen_d', 50),
        }),
        // Voided, out of range, another organization's: not counted.
        conversion(organization.id, shop.id, {
          orderCreatedAt: day0 + 50,
          status: 'refunded',
          attribution: attributed('agen_e', 10_000),
        }),
        conversion(organization.id, shop.id, { orderCreatedAt: day0 + 2 * dayMs }),
        conversion(stranger.id, strangerShop.id, { orderCreatedAt: day0 + 1, attribution: attributed('agen_f', 1) }),
      ];
      for (const row of rows) assert.equal(await store.conversions.insertIfAbsent(row), true);
      const range = { from: day0, to: day0 + 2 * dayMs };
      assert.deepEqual(await store.conversions.daily({ organizationId: organization.id }, range), [
        { day: dayNumber, currency: 'EUR', conversions: 3, attributedConversions: 2, attributedRevenue: 1000 },
        { day: dayNumber, currency: 'USD', conversions: 1, attributedConversions: 1, attributedRevenue: 999 },
        { day: dayNumber + 1, currency: 'USD', conversions: 1, attributedConversions: 1, attributedRevenue: 50 },
      ]);
      assert.deepEqual(await store.conversions.daily({ organizationId: organization.id, storeId: other.id }, range), [
        { day: dayNumber + 1, currency: 'USD', conversions: 1, attributedConversions: 1, attributedRevenue: 50 },
      ]);
    });

    it('filters generation lists by status, mode and creation time, newest first, paged', async () => {
      const store = context.store();
      const { organization } = await context.tenants().createOrganization({ name: 'Filtered generations', credits: 0 });
      const made: GenerationRecord[] = [];
      for (let index = 0; index < 12; index++) {
        const row = generation(organization.id, {
          createdAt: day0 + index * 1000,
          status: index % 3 === 0 ? 'failed' : 'complete',
          mode: index % 2 === 0 ? 'room-visualizer' : 'virtual-try-on',
        });
        made.push(row);
        await store.generations.create(row);
      }
      const expected = (keep: (row: GenerationRecord) => boolean) =>
        made
          .filter(keep)
          .reverse()
          .map((row) => row.id);
      const all = async (
        options: Omit<Parameters<Persistence['generations']['list']>[1], 'limit' | 'startingAfter'>,
      ) => {
        const ids: string[] = [];
        for (let startingAfter: string | undefined; ; ) {
          const page = await store.generations.list(organization.id, { ...options, limit: 2, startingAfter });
          ids.push(...page.data.map((row) => row.id));
          if (!page.hasMore) return ids;
          startingAfter = page.data.at(-1)!.id;
        }
      };
      assert.deepEqual(
        await all({ status: 'failed' }),
        expected((row) => row.status === 'failed'),
      );
      assert.deepEqual(
        await all({ mode: 'room-visualizer' }),
        expected((row) => row.mode === 'room-visualizer'),
      );
      assert.deepEqual(
        await all({ from: day0 + 3000, to: day0 + 9000 }),
        expected((row) => row.createdAt >= day0 + 3000 && row.createdAt < day0 + 9000),
      );
      assert.deepEqual(
        await all({ status: 'complete', mode: 'virtual-try-on', from: day0 + 2000 }),
        expected((row) => row.status === 'complete' && row.mode === 'virtual-try-on' && row.createdAt >= day0 + 2000),
      );
      assert.deepEqual(await all({ to: day0 }), []);
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
