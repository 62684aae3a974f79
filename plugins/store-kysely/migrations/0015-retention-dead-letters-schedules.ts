import type { Kysely } from 'kysely';
import { createIndexConcurrently } from './create-index-concurrently.ts';

/**
 * Schedules once per cluster, dead letters, and the indexes retention prunes by.
 *
 * - `scheduled_runs`: when each periodic task may run next; a process runs a task only if it moves
 *   that time forward itself (one conditional upsert), so N processes run it once per interval.
 * - `dead_jobs`: jobs the queue gave up, kept for operators to read and retry (`visualizer jobs`).
 * - Indexes by age on events and idempotency keys, so each pruning batch reads only the oldest rows.
 *
 * Safe under live traffic: new tables, and on Postgres the two indexes on existing tables are built
 * `concurrently` by `migrate` after the migration commits.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('scheduled_runs')
    .addColumn('name', 'text', (col) => col.primaryKey())
    .addColumn('next_run_at', 'bigint', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('dead_jobs')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('payload', 'text', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull())
    .addColumn('failures', 'integer', (col) => col.notNull())
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('died_at', 'bigint', (col) => col.notNull())
    .execute();
  // Operators list them newest first, by kind; retention prunes the oldest.
  await db.schema.createIndex('dead_jobs_by_died_at').on('dead_jobs').columns(['died_at', 'id']).execute();
  await db.schema.createIndex('dead_jobs_by_kind').on('dead_jobs').columns(['kind', 'died_at']).execute();

  // Existing tables that live traffic writes: built without blocking it (see create-index-concurrently.ts).
  await createIndexConcurrently(db, { name: 'events_by_age', table: 'events', columns: ['created_at', 'id'] });
  await createIndexConcurrently(db, {
    name: 'idempotency_keys_by_age',
    table: 'idempotency_keys',
    columns: ['created_at'],
  });
}
