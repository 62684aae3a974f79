import { sql } from '../kysely.ts';
import type { ConversionRecord, ConversionRepository } from '../../../kit/plugin.ts';
import type { Dialect } from '../dialect.ts';
import type { Database, Executor } from '../database.ts';
import { dayOf } from './day.ts';

type Row = Database['conversions'];

/** Orders in these statuses stay stored but no longer count (see core/domain/conversion.ts). */
const voided = ['refunded', 'cancelled'];

export const toRecord = (row: Row): ConversionRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  storeId: row.store_id,
  orderId: row.order_id,
  visitorId: row.visitor_id,
  sessionId: row.session_id,
  totalCents: Number(row.total_cents),
  currency: row.currency,
  platform: row.platform,
  status: row.status as ConversionRecord['status'],
  items: JSON.parse(row.items),
  source: row.source as ConversionRecord['source'],
  attribution:
    row.attributed_generation_id === null
      ? null
      : {
          generationId: row.attributed_generation_id,
          attributedRevenueCents: Number(row.attributed_revenue_cents ?? 0),
          attributedItems: row.attributed_items === null ? [] : JSON.parse(row.attributed_items),
        },
  orderCreatedAt: Number(row.order_created_at),
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});

const toRow = (record: ConversionRecord): Row => ({
  id: record.id,
  organization_id: record.organizationId,
  store_id: record.storeId,
  order_id: record.orderId,
  visitor_id: record.visitorId,
  session_id: record.sessionId,
  total_cents: record.totalCents,
  currency: record.currency,
  platform: record.platform,
  status: record.status,
  items: JSON.stringify(record.items),
  source: record.source,
  attributed_generation_id: record.attribution?.generationId ?? null,
  attributed_revenue_cents: record.attribution?.attributedRevenueCents ?? null,
  attributed_items: record.attribution ? JSON.stringify(record.attribution.attributedItems) : null,
  order_created_at: record.orderCreatedAt,
  created_at: record.createdAt,
  updated_at: record.updatedAt,
});

export function conversionRepository(db: Executor, dialect: Dialect): ConversionRepository {
  return {
    async insertIfAbsent(record) {
      const result = await db
        .insertInto('conversions')
        .values(toRow(record))
        .onConflict((conflict) => conflict.columns(['store_id', 'order_id']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
    },

    async findByOrder(storeId, orderId, options = {}) {
      let query = db
        .selectFrom('conversions')
        .selectAll()
        .where('store_id', '=', storeId)
        .where('order_id', '=', orderId);
      // SQLite transactions already hold the write lock (BEGIN IMMEDIATE); Postgres locks the row.
      if (options.forUpdate && dialect === 'postgres') query = query.forUpdate();
      const row = await query.executeTakeFirst();
      return row ? toRecord(row) : null;
    },

    async update(record) {
      const {
        id,
        organization_id: _org,
        store_id: _store,
        order_id: _order,
        created_at: _created,
        ...changes
      } = toRow(record);
      await db.updateTable('conversions').set(changes).where('id', '=', id).execute();
    },

    async list(organizationId, { storeId, from, to, limit, startingAfter }) {
      let query = db.selectFrom('conversions').selectAll().where('organization_id', '=', organizationId);
      if (storeId) query = query.where('store_id', '=', storeId);
      if (from !== undefined) query = query.where('order_created_at', '>=', from);
      if (to !== undefined) query = query.where('order_created_at', '<', to);
      if (startingAfter) {
        const cursor = await db
          .selectFrom('conversions')
          .select(['order_created_at', 'id'])
          .where('id', '=', startingAfter)
          .where('organization_id', '=', organizationId)
          .executeTakeFirst();
        if (!cursor) return { data: [], hasMore: false };
        query = query.where((eb) =>
          eb.or([
            eb('order_created_at', '<', cursor.order_created_at),
            eb.and([eb('order_created_at', '=', cursor.order_created_at), eb('id', '<', cursor.id)]),
          ]),
        );
      }
      const rows = await query
        .orderBy('order_created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit + 1)
        .execute();
      return { data: rows.slice(0, limit).map(toRecord), hasMore: rows.length > limit };
    },

    async totals(storeId, { from, to }) {
      const rows = await db
        .selectFrom('conversions')
        .select((eb) => [
          'currency',
          eb.fn.countAll<number | string>().as('conversions'),
          eb.fn.count<number | string>('attributed_generation_id').as('attributed'),
          eb.fn.sum<number | string | null>('attributed_revenue_cents').as('revenue'),
        ])
        .where('store_id', '=', storeId)
        .where('order_created_at', '>=', from)
        .where('order_created_at', '<', to)
        .where('status', 'not in', voided)
        .groupBy('currency')
        .orderBy('currency')
        .execute();
      const attributedRevenue: Record<string, number> = {};
      let conversions = 0;
      let attributedConversions = 0;
      for (const row of rows) {
        conversions += Number(row.conversions);
        attributedConversions += Number(row.attributed);
        if (Number(row.attributed) > 0) attributedRevenue[row.currency] = Number(row.revenue ?? 0);
      }
      return { conversions, attributedConversions, attributedRevenue };
    },

    async daily({ organizationId, storeId }, { from, to }) {
      let query = db
        .selectFrom('conversions')
        .select((eb) => [
          dayOf('order_created_at').as('day'),
          'currency',
          eb.fn.countAll<number | string>().as('conversions'),
          eb.fn.count<number | string>('attributed_generation_id').as('attributed'),
          eb.fn.sum<number | string | null>('attributed_revenue_cents').as('revenue'),
        ]);
      // conversions_by_store or conversions_by_organization, both (…, order_created_at).
      query =
        storeId === undefined
          ? query.where('organization_id', '=', organizationId)
          : query.where('store_id', '=', storeId);
      const rows = await query
        .where('order_created_at', '>=', from)
        .where('order_created_at', '<', to)
        .where('status', 'not in', voided)
        .groupBy([dayOf('order_created_at'), 'currency'])
        .orderBy(dayOf('order_created_at'))
        .orderBy('currency')
        .execute();
      return rows.map((row) => ({
        day: Number(row.day),
        currency: row.currency,
        conversions: Number(row.conversions),
        attributedConversions: Number(row.attributed),
        attributedRevenue: Number(row.revenue ?? 0),
      }));
    },

    async visitors(storeId, { from, to }) {
      const rows = await db
        .selectFrom('conversions')
        .select([
          'visitor_id',
          // 1 when any of the visitor's orders in range still counts.
          sql<number | string>`max(case when status in ('refunded', 'cancelled') then 0 else 1 end)`.as('counts'),
        ])
        .where('store_id', '=', storeId)
        .where('order_created_at', '>=', from)
        .where('order_created_at', '<', to)
        .where('visitor_id', 'is not', null)
        .where('visitor_id', '!=', '')
        .groupBy('visitor_id')
        .execute();
      return {
        seen: rows.map((row) => row.visitor_id!),
        converted: rows.filter((row) => Number(row.counts) === 1).map((row) => row.visitor_id!),
      };
    },
  };
}
