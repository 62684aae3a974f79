import type { Kysely } from 'kysely';

/**
 * Retries are jobs (see 0003), so nothing looks deliveries up by status and next attempt; the
 * index only cost a page write on every attempt.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('event_deliveries_due').execute();
}
