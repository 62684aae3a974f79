import type { Kysely } from 'kysely';
import { createIndexConcurrently } from './create-index-concurrently.ts';

/**
 * The process registry: every `serve` and `worker` writes a row at start and refreshes `seen_at`
 * while it runs, so a starting process sees which others share the database (and on which host)
 * and can refuse or warn about a topology that cannot work (see cli/topology.ts).
 *
 * Safe under live traffic (docs/operations.md, "Migrations under live traffic"): a new table.
 */
export const liveSafe = true;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('processes')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('hostname', 'text', (col) => col.notNull())
    .addColumn('role', 'text', (col) => col.notNull())
    .addColumn('pid', 'integer', (col) => col.notNull())
    .addColumn('started_at', 'bigint', (col) => col.notNull())
    .addColumn('seen_at', 'bigint', (col) => col.notNull())
    .addColumn('details', 'text', (col) => col.notNull())
    .execute();
  // Live processes are those seen lately; stale rows are pruned by the same range.
  await createIndexConcurrently(db, { name: 'processes_by_seen_at', table: 'processes', columns: ['seen_at'] });
}
