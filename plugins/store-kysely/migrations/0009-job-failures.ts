import type { Kysely } from 'kysely';

/**
 * A job's failures, apart from its attempts: a run that an outage postponed (the database, image
 * storage) is an attempt but not a failure, so a render retried through a long outage still has its
 * retries for the engine's own transient errors afterwards.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('jobs')
    .addColumn('failures', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
}
