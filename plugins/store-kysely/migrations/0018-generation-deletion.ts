import type { Kysely } from 'kysely';
import { createIndexConcurrently, withLockTimeout } from './create-index-concurrently.ts';

/**
 * Deleting generations, and how long an organization keeps its renders.
 *
 * - `generations.deleted_at`, `generations.deletion_reason` (`deleted`, `expired`, `erased`): a
 *   deleted generation stays as a tombstone with everything personal scrubbed (photo reference,
 *   products, hint, metadata, result URLs, error message, visitor and session ids). Reads and lists
 *   treat it as gone; it keeps what an idempotent replay (its key still refers to the row), the
 *   ledger's references and the daily counts need. Its images are deleted by a queued job (see
 *   core/services/generation-deletion.ts).
 * - `organizations.render_retention_days`: null keeps renders for ever (the default); N deletes a
 *   render N days after it was made (the retention sweep).
 * - `generations_live_by_age`: the retention sweep's index, live generations of an organization by
 *   age, so finding the expired ones never walks the tombstones earlier sweeps left.
 *
 * Safe under live traffic: nullable columns that code before it neither reads nor writes (added
 * under a lock timeout), and the index is built `concurrently` by `migrate` after the commit.
 */
export const liveSafe = true;

export async function up(db: Kysely<any>): Promise<void> {
  await withLockTimeout(db, 'generations', async () => {
    await db.schema.alterTable('generations').addColumn('deleted_at', 'bigint').execute();
    await db.schema.alterTable('generations').addColumn('deletion_reason', 'text').execute();
  });
  await withLockTimeout(db, 'organizations', () =>
    db.schema.alterTable('organizations').addColumn('render_retention_days', 'integer').execute(),
  );
  await createIndexConcurrently(db, {
    name: 'generations_live_by_age',
    table: 'generations',
    columns: ['organization_id', 'created_at'],
    where: 'deleted_at is null',
  });
}
