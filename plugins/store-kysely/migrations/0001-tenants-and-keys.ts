import type { Kysely } from 'kysely';
import { sql } from '../kysely.ts';

/**
 * Organizations with their credit balance, stores, API and conversion keys, and the credit ledger.
 * Portable to SQLite and Postgres: text ids, bigint epoch-millisecond timestamps, integer money.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('credit_balance', 'bigint', (col) => col.notNull().defaultTo(0).check(sqlNonNegative('credit_balance')))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('stores')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) => col.notNull().references('organizations.id'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('attribution_window_days', 'integer', (col) => col.notNull().defaultTo(7))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('stores_by_organization')
    .on('stores')
    .columns(['organization_id', 'created_at'])
    .execute();

  // Secret (`visualizer_`) and conversion (`viz_`) keys share one table: same lifecycle, told apart by `kind`.
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) => col.notNull().references('organizations.id'))
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('name', 'text')
    .addColumn('display_prefix', 'text', (col) => col.notNull())
    .addColumn('key_hash', 'text', (col) => col.notNull().unique())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('last_used_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('api_keys_by_organization')
    .on('api_keys')
    .columns(['organization_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('credit_ledger')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) => col.notNull().references('organizations.id'))
    .addColumn('delta', 'bigint', (col) => col.notNull())
    .addColumn('balance_after', 'bigint', (col) => col.notNull())
    .addColumn('reason', 'text', (col) => col.notNull())
    .addColumn('reference', 'text')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('credit_ledger_by_organization')
    .on('credit_ledger')
    .columns(['organization_id', 'created_at'])
    .execute();
}

function sqlNonNegative(column: string) {
  // A last line of defence: the debit query already refuses to overdraw.
  return sql`${sql.ref(column)} >= 0`;
}
