import type { DeliveryAttempt, DeliveryRecord, DeliveryRepository } from '../../../kit/plugin.ts';
import type { Dialect } from '../dialect.ts';
import type { Database, Executor } from '../database.ts';
import { prepared, preparedInsert } from '../prepared.ts';
import { toEvent } from './events.ts';
import { toEndpoint } from './webhook-endpoints.ts';

const endpointColumns = [
  'id',
  'organization_id',
  'url',
  'description',
  'enabled_events',
  'status',
  'disabled_reason',
  'secret',
  'previous_secrets',
  'failing_since',
  'deleted_at',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof Database['webhook_endpoints']>;
const eventColumns = [
  'id',
  'organization_id',
  'type',
  'body',
  'created_at',
  'generation_id',
] as const satisfies ReadonlyArray<keyof Database['events']>;

/** The delivery, its endpoint and its event in one read: every attempt starts with it. */
const forAttempt = prepared((db, values: { id: string }) =>
  db
    .selectFrom('event_deliveries as d')
    .leftJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    // The event must belong to the endpoint's organization, as every event read is scoped.
    .leftJoin('events as e', (join) =>
      join.onRef('e.id', '=', 'd.event_id').onRef('e.organization_id', '=', 'w.organization_id'),
    )
    .selectAll('d')
    .select(endpointColumns.map((column) => `w.${column} as w_${column}` as const))
    .select(eventColumns.map((column) => `e.${column} as e_${column}` as const))
    .where('d.id', '=', values.id),
);
const insertDelivery = preparedInsert('event_deliveries');
const insertAttempt = preparedInsert('delivery_attempts');
const updateDelivery = prepared(
  (
    db,
    values: Pick<
      Database['event_deliveries'],
      'id' | 'status' | 'attempt_count' | 'next_attempt_at' | 'last_error' | 'updated_at'
    >,
  ) =>
    db
      .updateTable('event_deliveries')
      .set({
        status: values.status,
        attempt_count: values.attempt_count,
        next_attempt_at: values.next_attempt_at,
        last_error: values.last_error,
        updated_at: values.updated_at,
      })
      .where('id', '=', values.id),
);

/** Reads the columns a joined row carries under `prefix` back as a row of their own table (null if the join found none). */
function joinedColumns<Row>(prefix: string, columns: readonly string[]) {
  const aliases = columns.map((column) => [column, `${prefix}${column}`] as const);
  return (row: Record<string, unknown>): Row | null => {
    if (row[`${prefix}id`] === null) return null;
    const out: Record<string, unknown> = {};
    for (const [column, alias] of aliases) out[column] = row[alias];
    return out as Row;
  };
}
const endpointOf = joinedColumns<Database['webhook_endpoints']>('w_', endpointColumns);
const eventOf = joinedColumns<Database['events']>('e_', eventColumns);

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

export function deliveryRepository(db: Executor, dialect: Dialect): DeliveryRepository {
  return {
    async create(delivery) {
      await insertDelivery(db, dialect, {
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
      });
    },
    async forAttempt(id) {
      const [row] = (await forAttempt(db, dialect, { id })).rows;
      if (!row) return null;
      const endpoint = endpointOf(row);
      const event = eventOf(row);
      return {
        delivery: toDelivery(row),
        endpoint: endpoint && { ...toEndpoint(endpoint), deleted: endpoint.deleted_at !== null },
        event: event && toEvent(event),
      };
    },
    async forEvent(eventId) {
      const rows = await db
        .selectFrom('event_deliveries')
        .selectAll()
        .where('event_id', '=', eventId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toDelivery);
    },
    async update(delivery) {
      await updateDelivery(db, dialect, {
        id: delivery.id,
        status: delivery.status,
        attempt_count: delivery.attemptCount,
        next_attempt_at: delivery.nextAttemptAt,
        last_error: delivery.lastError,
        updated_at: delivery.updatedAt,
      });
    },
    async recordAttempt(attempt) {
      await insertAttempt(db, dialect, {
        id: attempt.id,
        delivery_id: attempt.deliveryId,
        attempted_at: attempt.attemptedAt,
        status_code: attempt.statusCode,
        error: attempt.error,
        duration_ms: attempt.durationMs,
        response_body: attempt.responseBody,
      });
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
