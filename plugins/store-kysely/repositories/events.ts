import type { EventRepository, OutboxEvent } from '../../../kit/plugin.ts';
import type { Dialect } from '../dialect.ts';
import type { Database, Executor } from '../database.ts';
import { preparedInsert } from '../prepared.ts';
import { afterCursor } from './paginate.ts';

const insertEvent = preparedInsert('events');

export const toEvent = (row: Database['events']): OutboxEvent => ({
  id: row.id,
  organizationId: row.organization_id,
  type: row.type,
  body: row.body,
  createdAt: Number(row.created_at),
});

export function eventRepository(db: Executor, dialect: Dialect): EventRepository {
  return {
    async append(event) {
      await insertEvent(db, dialect, { id: event.id, organization_id: event.organizationId, type: event.type, body: event.body, created_at: event.createdAt });
    },
    async get(organizationId, id) {
      const row = await db.selectFrom('events').selectAll().where('id', '=', id).where('organization_id', '=', organizationId).executeTakeFirst();
      return row ? toEvent(row) : null;
    },
    async list(organizationId, { limit, startingAfter, type }) {
      let query = db.selectFrom('events').selectAll().where('organization_id', '=', organizationId);
      if (type) query = query.where('type', '=', type);
      const paged = await afterCursor(db, 'events', query, organizationId, startingAfter);
      if (!paged) return [];
      const rows = await paged
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map(toEvent);
    },
  };
}
