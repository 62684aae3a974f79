import type { Kysely } from 'kysely';

/**
 * Why an endpoint was disabled (a 410, days of failures, or its owner), and soft deletion: a
 * deleted endpoint's deliveries and attempts stay readable in the event log.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').addColumn('disabled_reason', 'text').execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('deleted_at', 'bigint').execute();
  await db.schema.alterTable('event_deliveries').addColumn('last_error', 'text').execute();
}
