import type { Kysely } from 'kysely';

/**
 * The durable job queue. A job row is written in the same transaction as the work it stands for
 * (a generation), so accepted work cannot be lost; a claimed job carries a lease that, once
 * expired, lets another worker take it over.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('payload', 'text', (col) => col.notNull())
    .addColumn('run_at', 'bigint', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  // Claims look for due jobs by lease expiry and run time.
  await db.schema.createIndex('jobs_due').on('jobs').columns(['kind', 'locked_until', 'run_at']).execute();
}
