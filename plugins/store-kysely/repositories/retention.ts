import type { RetentionRepository } from '../../../kit/plugin.ts';
import type { Executor } from '../database.ts';

/** Each call deletes one bounded batch; the caller runs each in its own transaction (see the port). */
export function retentionRepository(db: Executor): RetentionRepository {
  return {
    async pruneEvents(before, limit) {
      // The oldest events (index events_by_age) none of whose deliveries is still being retried.
      const rows = await db
        .selectFrom('events')
        .select('id')
        .where('created_at', '<', before)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('event_deliveries')
                .select('event_deliveries.id')
                .whereRef('event_deliveries.event_id', '=', 'events.id')
                .where('event_deliveries.status', '=', 'pending'),
            ),
          ),
        )
        .orderBy('created_at')
        .limit(limit)
        .execute();
      const ids = rows.map((row) => row.id);
      if (ids.length === 0) return 0;
      // The pending check again at each delete: a delivery resent meanwhile keeps its event and history.
      const ended = db
        .selectFrom('event_deliveries')
        .select('id')
        .where('event_id', 'in', ids)
        .where('status', '!=', 'pending');
      await db.deleteFrom('delivery_attempts').where('delivery_id', 'in', ended).execute();
      await db.deleteFrom('event_deliveries').where('event_id', 'in', ids).where('status', '!=', 'pending').execute();
      const deleted = await db
        .deleteFrom('events')
        .where('id', 'in', ids)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('event_deliveries')
                .select('event_deliveries.id')
                .whereRef('event_deliveries.event_id', '=', 'events.id'),
            ),
          ),
        )
        .executeTakeFirst();
      return Number(deleted.numDeletedRows);
    },

    async pruneIdempotencyKeys(before, limit) {
      const oldest = db
        .selectFrom('idempotency_keys')
        .select(['organization_id', 'key'])
        .where('created_at', '<', before)
        .orderBy('created_at')
        .limit(limit);
      const deleted = await db
        .deleteFrom('idempotency_keys')
        .where((eb) => eb(eb.refTuple('organization_id', 'key'), 'in', oldest.$asTuple('organization_id', 'key')))
        .executeTakeFirst();
      return Number(deleted.numDeletedRows);
    },
  };
}
