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
  // Left out rather than null, so an event reads back exactly as it was appended.
  ...(row.generation_id == null ? {} : { generationId: row.generation_id }),
});

export function eventRepository(db: Executor, dialect: Dialect): EventRepository {
  return {
    async append(event) {
      await insertEvent(db, dialect, {
        id: event.id,
        organization_id: event.organizationId,
        type: event.type,
        body: event.body,
        created_at: event.createdAt,
        generation_id: event.generationId ?? null,
      });
    },
    async get(organizationId, id) {
      const row = await db
        .selectFrom('events')
        .selectAll()
        .where('id', '=', id)
        .where('organization_id', '=', organizationId)
        .executeTakeFirst();
      return row ? toEvent(row) : null;
    },
    async list(organizationId, { limit, startingAfter, type, generationId }) {
      let query = db.selectFrom('events').selectAll().where('organization_id', '=', organizationId);
      if (type) query = query.where('type', '=', type);
      // events_by_generation serves a generation's few events; without it, events_by_organization.
      if (generationId) query = query.where('generation_id', '=', generationId);
      const paged = await afterCursor(db, 'events', query, organizationId, startingAfter);
      if (!paged) return [];
      const rows = await paged.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toEvent);
    },
    async since(organizationId, { from, types, limit }) {
      if (types && types.length === 0) return [];
      // events_by_organization (organization_id, created_at, id) serves the range and the order.
      let query = db.selectFrom('events').selectAll().where('organization_id', '=', organizationId);
      const { createdAt, afterId } = from;
      query =
        afterId === undefined
          ? query.where('created_at', '>=', createdAt)
          : query.where((eb) => eb(eb.refTuple('created_at', 'id'), '>', eb.tuple(createdAt, afterId)));
      if (types) query = query.where('type', 'in', types);
      const rows = await query.orderBy('created_at', 'asc').orderBy('id', 'asc').limit(limit).execute();
      return rows.map(toEvent);
    },
  };
}
