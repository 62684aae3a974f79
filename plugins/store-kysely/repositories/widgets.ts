import type { GenerationRecord, WidgetRecord, WidgetRepository } from '../../../kit/plugin.ts';
import type { Database, Executor } from '../database.ts';
import { afterCursor } from './paginate.ts';

type Row = Database['widgets'];

const toRecord = (row: Row): WidgetRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  storeId: row.store_id,
  mode: row.mode as WidgetRecord['mode'],
  imageSize: row.image_size as WidgetRecord['imageSize'],
  allowedOrigins: JSON.parse(row.allowed_origins),
  dailyGenerationCap: Number(row.daily_generation_cap),
  createdAt: Number(row.created_at),
});

export function widgetRepository(db: Executor, generationById: (organizationId: string, id: string) => Promise<GenerationRecord | null>): WidgetRepository {
  return {
    async create(widget) {
      await db
        .insertInto('widgets')
        .values({
          id: widget.id,
          organization_id: widget.organizationId,
          store_id: widget.storeId,
          mode: widget.mode,
          image_size: widget.imageSize,
          allowed_origins: JSON.stringify(widget.allowedOrigins),
          daily_generation_cap: widget.dailyGenerationCap,
          created_at: widget.createdAt,
        })
        .execute();
    },

    async get(organizationId, id) {
      const row = await db.selectFrom('widgets').selectAll().where('id', '=', id).where('organization_id', '=', organizationId).executeTakeFirst();
      return row ? toRecord(row) : null;
    },

    async update(organizationId, id, changes) {
      const values: Partial<Row> = {};
      if (changes.mode !== undefined) values.mode = changes.mode;
      if (changes.imageSize !== undefined) values.image_size = changes.imageSize;
      if (changes.allowedOrigins !== undefined) values.allowed_origins = JSON.stringify(changes.allowedOrigins);
      if (changes.dailyGenerationCap !== undefined) values.daily_generation_cap = changes.dailyGenerationCap;
      if (Object.keys(values).length > 0) {
        await db.updateTable('widgets').set(values).where('id', '=', id).where('organization_id', '=', organizationId).execute();
      }
      const row = await db.selectFrom('widgets').selectAll().where('id', '=', id).where('organization_id', '=', organizationId).executeTakeFirst();
      return row ? toRecord(row) : null;
    },

    async findById(id) {
      const row = await db.selectFrom('widgets').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toRecord(row) : null;
    },

    async list(organizationId, { storeId, limit, startingAfter }) {
      let query = db.selectFrom('widgets').selectAll().where('organization_id', '=', organizationId);
      if (storeId) query = query.where('store_id', '=', storeId);
      const paged = await afterCursor(db, 'widgets', query, organizationId, startingAfter);
      if (!paged) return { data: [], hasMore: false };
      query = paged;
      const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
      return { data: rows.slice(0, limit).map(toRecord), hasMore: rows.length > limit };
    },

    async countGenerationsSince(widgetId, since) {
      const row = await db
        .selectFrom('generations')
        .select((eb) => eb.fn.countAll<number | string>().as('count'))
        .where('widget_id', '=', widgetId)
        .where('created_at', '>=', since)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    async generationForVisitor(widgetId, visitorId, generationId) {
      const owner = await db
        .selectFrom('generations')
        .select('organization_id')
        .where('id', '=', generationId)
        .where('widget_id', '=', widgetId)
        .where('visitor_id', '=', visitorId)
        .executeTakeFirst();
      return owner ? generationById(owner.organization_id, generationId) : null;
    },
  };
}
