import type { Kysely } from 'kysely';

/**
 * Claims look for `kind = ? AND run_at <= now`, skipping the few rows with a live lease. The
 * first index put `locked_until` before `run_at`, so the run-time range could not use it and every
 * claim scanned all of a kind's jobs, waiting ones included.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('jobs_due').execute();
  await db.schema.createIndex('jobs_ready').on('jobs').columns(['kind', 'run_at']).execute();
}
