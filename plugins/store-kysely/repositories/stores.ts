import type { Store, StoreRepository } from '../../../kit/plugin.ts';
import type { Database, Executor } from '../database.ts';
import { afterCursor } from './paginate.ts';

const toStore = (row: Database['stores']): Store => ({
  id: row.id,
  organizationId: row.organization_id,
  name: row.name,
  attributionWindowDays: Number(row.attribution_window_days),
  createdAt: Number(row.created_at),
});

export function storeRepository(db: Executor): StoreRepository {
  return {
    async create(store) {
      await db
        .insertInto('stores')
        .values({
          id: store.id,
          organization_id: store.organizationId,
          name: store.name,
          attribution_window_days: store.attributionWindowDays,
          created_at: store.createdAt,
        })
        .execute();
      return store;
    },
    async get(organizationId, storeId) {
      const row = await db
        .selectFrom('stores')
        .selectAll()
        .where('id', '=', storeId)
        .where('organization_id', '=', organizationId)
        .executeTakeFirst();
      return row ? toStore(row) : null;
    },
    async findById(storeId) {
      const row = await db.selectFrom('stores').selectAll().where('id', '=', storeId).executeTakeFirst();
      return row ? toStore(row) : null;
    },
    async list(organizationId, { limit, startingAfter }) {
      const query = await afterCursor(
        db,
        'stores',
        db.selectFrom('stores').selectAll().where('organization_id', '=', organizationId),
        organizationId,
        startingAfter,
      );
      if (!query) return { data: [], hasMore: false };
      const rows = await query
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit + 1)
        .execute();
      return { data: rows.slice(0, limit).map(toStore), hasMore: rows.length > limit };
    },
  };
}
