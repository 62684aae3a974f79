import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConversionRecord } from '../plugin.ts';
import type { PersistenceSuiteContext } from './persistence-context.ts';
import { conversionRecord } from './records.ts';

const dayMs = 86_400_000;
/** 2026-03-01T00:00:00Z: day 20513 since the epoch. */
const day0 = Date.UTC(2026, 2, 1);
const dayNumber = day0 / dayMs;

/**
 * Attribution (`AttributionRepositories`), part of the persistence contract: the conversions a
 * shop reports and their per-day figures for the dashboard (grouped in the database by UTC day of
 * the order). Conversions found for a visitor are in the visitors suite.
 */
export function persistenceAttributionContract(context: PersistenceSuiteContext) {
  const conversion = (organizationId: string, storeId: string, fields: Partial<ConversionRecord>) =>
    conversionRecord(organizationId, storeId, { orderCreatedAt: day0, createdAt: day0, updatedAt: day0, ...fields });
  const attributed = (generationId: string, cents: number) => ({
    generationId,
    attributedRevenueCents: cents,
    attributedItems: [],
  });

  describe('attribution: conversions', () => {
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
  });
}
