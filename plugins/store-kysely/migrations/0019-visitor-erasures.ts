import type { Kysely } from 'kysely';
import { createIndexConcurrently, withLockTimeout } from './create-index-concurrently.ts';

/**
 * Erasing a widget visitor (GDPR Article 17), and finding what is held about one (Article 15).
 *
 * - `visitor_erasures`: the audit record of each erasure: who asked (an API key or a dashboard
 *   user), when it was asked and completed, and how much of each kind it deleted or unlinked. It
 *   never holds the visitor's id nor a session id.
 * - `visitor_erasure_subjects`: a pending erasure's visitor id, one row per erasure, unique per
 *   (organization, visitor) so that requests racing for one visitor end as one erasure.
 *   `visitor_erasure_sessions`: the session ids collected from the generations and identities
 *   as they are deleted, which the conversions are then unlinked from. Both are deleted in the
 *   transaction that completes the erasure, so the visitor's ids live only as long as the work.
 * - `conversions_by_visitor`, `conversions_by_session` (partial: only conversions that carry the
 *   id): a visitor's conversions, found and unlinked without reading the organization's others.
 *   Generations and identities already have indexes by (store, visitor).
 *
 * Safe under live traffic: new tables (the foreign key to `organizations` under a lock timeout),
 * and on Postgres the two indexes on `conversions` are built
 * `concurrently` by `migrate` after the commit.
 */
export const liveSafe = true;

export async function up(db: Kysely<any>): Promise<void> {
  // Its foreign key briefly locks `organizations` (which every debit updates): under a lock timeout.
  await withLockTimeout(db, 'organizations', () =>
    db.schema
      .createTable('visitor_erasures')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('organization_id', 'text', (col) => col.notNull().references('organizations.id'))
      .addColumn('status', 'text', (col) => col.notNull())
      .addColumn('requested_by_type', 'text', (col) => col.notNull())
      .addColumn('requested_by_id', 'text', (col) => col.notNull())
      .addColumn('requested_at', 'bigint', (col) => col.notNull())
      .addColumn('completed_at', 'bigint')
      .addColumn('generations_deleted', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('identities_deleted', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('conversions_unlinked', 'integer', (col) => col.notNull().defaultTo(0))
      .execute(),
  );
  await db.schema
    .createIndex('visitor_erasures_by_organization')
    .on('visitor_erasures')
    .columns(['organization_id', 'requested_at', 'id'])
    .execute();

  await db.schema
    .createTable('visitor_erasure_subjects')
    .addColumn('erasure_id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) => col.notNull())
    .addColumn('visitor_id', 'text', (col) => col.notNull())
    .addUniqueConstraint('visitor_erasure_subjects_visitor', ['organization_id', 'visitor_id'])
    .execute();

  await db.schema
    .createTable('visitor_erasure_sessions')
    .addColumn('erasure_id', 'text', (col) => col.notNull())
    .addColumn('session_id', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('visitor_erasure_sessions_pk', ['erasure_id', 'session_id'])
    .execute();

  // Conversions are written by live traffic: built without blocking it (see create-index-concurrently.ts).
  await createIndexConcurrently(db, {
    name: 'conversions_by_visitor',
    table: 'conversions',
    columns: ['organization_id', 'visitor_id'],
    where: 'visitor_id is not null',
  });
  await createIndexConcurrently(db, {
    name: 'conversions_by_session',
    table: 'conversions',
    columns: ['organization_id', 'session_id'],
    where: 'session_id is not null',
  });
}
