import type { DeliveryAttempt, DeliveryRecord, DeliveryRepository } from '../../../core/ports/persistence.ts';
import type { Database, Executor } from '../database.ts';

const toDelivery = (row: Database['event_deliveries']): DeliveryRecord => ({
  id: row.id,
  eventId: row.event_id,
  endpointId: row.endpoint_id,
  status: row.status as DeliveryRecord['status'],
  attemptCount: Number(row.attempt_count),
  nextAttemptAt: row.next_attempt_at === null ? null : Number(row.next_attempt_at),
  lastError: row.last_error,
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});

const toAttempt = (row: Database['delivery_attempts']): DeliveryAttempt => ({
  id: row.id,
  deliveryId: row.delivery_id,
  attemptedAt: Number(row.attempted_at),
  statusCode: row.status_code === null ? null : Number(row.status_code),
  error: row.error,
  durationMs: Number(row.duration_ms),
  responseBody: row.response_body,
});

export function deliveryRepository(db: Executor): DeliveryRepository {
  return {
    async create(delivery) {
      await db
        .insertInto('event_deliveries')
        .values({
          id: delivery.id,
          event_id: delivery.eventId,
          endpoint_id: delivery.endpointId,
          status: delivery.status,
          attempt_count: delivery.attemptCount,
          next_attempt_at: delivery.nextAttemptAt,
          locked_until: null,
          last_error: delivery.lastError,
          created_at: delivery.createdAt,
          updated_at: delivery.updatedAt,
        })
        .execute();
    },
    async get(id) {
      const row = await db.selectFrom('event_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toDelivery(row) : null;
    },
    async forEvent(eventId) {
      const rows = await db.selectFrom('event_deliveries').selectAll().where('event_id', '=', eventId).orderBy('created_at').orderBy('id').execute();
      return rows.map(toDelivery);
    },
    async update(delivery) {
      await db
        .updateTable('event_deliveries')
        .set({
          status: delivery.status,
          attempt_count: delivery.attemptCount,
          next_attempt_at: delivery.nextAttemptAt,
          last_error: delivery.lastError,
          updated_at: delivery.updatedAt,
        })
        .where('id', '=', delivery.id)
        .execute();
    },
    async recordAttempt(attempt) {
      await db
        .insertInto('delivery_attempts')
        .values({
          id: attempt.id,
          delivery_id: attempt.deliveryId,
          attempted_at: attempt.attemptedAt,
          status_code: attempt.statusCode,
          error: attempt.error,
          duration_ms: attempt.durationMs,
          response_body: attempt.responseBody,
        })
        .execute();
    },
    async attemptsForEvent(eventId) {
      const rows = await db
        .selectFrom('delivery_attempts')
        .innerJoin('event_deliveries', 'event_deliveries.id', 'delivery_attempts.delivery_id')
        .selectAll('delivery_attempts')
        .select('event_deliveries.endpoint_id')
        .where('event_deliveries.event_id', '=', eventId)
        .orderBy('delivery_attempts.attempted_at')
        .orderBy('delivery_attempts.id')
        .execute();
      return rows.map((row) => ({ ...toAttempt(row), endpointId: row.endpoint_id }));
    },
  };
}
