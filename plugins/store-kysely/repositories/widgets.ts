import type { Expression, SqlBool } from 'kysely';
import { sql } from '../kysely.ts';
import type { GenerationRecord, WidgetDayUsage, WidgetRecord, WidgetRepository } from '../../../kit/plugin.ts';
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
  dailyCreditCap: row.daily_credit_cap === null ? null : Number(row.daily_credit_cap),
  createdAt: Number(row.created_at),
});

const toUsage = (row: { generations: number | string; credits: number | string }): WidgetDayUsage => ({
  generations: Number(row.generations),
  credits: Number(row.credits),
});

async function usageOn(db: Executor, widgetIds: string[], day: number): Promise<Map<string, WidgetDayUsage>> {
  const usage = new Map<string, WidgetDayUsage>();
  if (widgetIds.length === 0) return usage;
  const rows = await db
    .selectFrom('widget_daily_usage')
    .select(['widget_id', 'generations', 'credits'])
    .where('widget_id', 'in', widgetIds)
    .where('day', '=', day)
    .execute();
  for (const row of rows) usage.set(row.widget_id, toUsage(row));
  return usage;
}

export function widgetRepository(
  db: Executor,
  generationById: (organizationId: string, id: string) => Promise<GenerationRecord | null>,
): WidgetRepository {
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
          daily_credit_cap: widget.dailyCreditCap,
          created_at: widget.createdAt,
        })
        .execute();
    },

    async get(organizationId, id) {
      const row = await db
        .selectFrom('widgets')
        .selectAll()
        .where('id', '=', id)
        .where('organization_id', '=', organizationId)
        .executeTakeFirst();
      return row ? toRecord(row) : null;
    },

    async update(organizationId, id, changes) {
      const values: Partial<Row> = {};
      if (changes.mode !== undefined) values.mode = changes.mode;
      if (changes.imageSize !== undefined) values.image_size = changes.imageSize;
      if (changes.allowedOrigins !== undefined) values.allowed_origins = JSON.stringify(changes.allowedOrigins);
      if (changes.dailyGenerationCap !== undefined) values.daily_generation_cap = changes.dailyGenerationCap;
      if (changes.dailyCreditCap !== undefined) values.daily_credit_cap = changes.dailyCreditCap;
      if (Object.keys(values).length > 0) {
        await db
          .updateTable('widgets')
          .set(values)
          .where('id', '=', id)
          .where('organization_id', '=', organizationId)
          .execute();
      }
      const row = await db
        .selectFrom('widgets')
        .selectAll()
        .where('id', '=', id)
        .where('organization_id', '=', organizationId)
        .executeTakeFirst();
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
      const rows = await query
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit + 1)
        .execute();
      return { data: rows.slice(0, limit).map(toRecord), hasMore: rows.length > limit };
    },

    async countGeneration({ widgetId, day, credits, caps }) {
      const current = async () => (await usageOn(db, [widgetId], day)).get(widgetId) ?? { generations: 0, credits: 0 };
      // A first generation of the day inserts its row, which only a cap below one generation's cost could refuse.
      if ((caps.generations !== null && caps.generations < 1) || (caps.credits !== null && caps.credits < credits))
        return { counted: false, usage: await current() };
      const within: Array<Expression<SqlBool>> = [];
      if (caps.generations !== null)
        within.push(sql<SqlBool>`widget_daily_usage.generations + 1 <= ${caps.generations}`);
      if (caps.credits !== null) within.push(sql<SqlBool>`widget_daily_usage.credits + ${credits} <= ${caps.credits}`);
      // One statement: Postgres locks the conflicting row, SQLite the whole database, while the caps
      // are checked against the row's latest values, so racing calls each see the one before.
      const counted = await db
        .insertInto('widget_daily_usage')
        .values({ widget_id: widgetId, day, generations: 1, credits })
        .onConflict((conflict) => {
          const update = conflict.columns(['widget_id', 'day']).doUpdateSet({
            generations: sql`widget_daily_usage.generations + 1`,
            credits: sql`widget_daily_usage.credits + ${credits}`,
          });
          return within.length ? update.where((eb) => eb.and(within)) : update;
        })
        .returning(['generations', 'credits'])
        .executeTakeFirst();
      if (counted) return { counted: true, usage: toUsage(counted) };
      return { counted: false, usage: await current() };
    },

    async refundCredits(widgetId, day, credits) {
      await db
        .updateTable('widget_daily_usage')
        .set({ credits: sql`case when credits > ${credits} then credits - ${credits} else 0 end` })
        .where('widget_id', '=', widgetId)
        .where('day', '=', day)
        .execute();
    },

    usageOn: (widgetIds, day) => usageOn(db, widgetIds, day),

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
