import type { Kysely } from 'kysely';
import { sql, SqliteIntrospector } from '../kysely.ts';

/**
 * `seq` numbers ledger entries in the order they were written, and the ledger is listed by it.
 * Their times cannot order them: entries share a millisecond, ids are random within one, and a
 * generation's time is taken before its photo is stored and its organization's balance row is
 * locked, so entries commit in another order than their times. An organization's writes are
 * serialized (each changes the balance row before inserting its entry), so numbers assigned at
 * insert chain its entries' balances.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // A migration gets no dialect; the introspector Kysely was built with tells it.
  if (db.introspection instanceof SqliteIntrospector) await sqliteUp(db);
  else await postgresUp(db);
  // Listing an organization's ledger now reads this index backwards; the one by time served nothing else.
  await db.schema.dropIndex('credit_ledger_by_organization').ifExists().execute();
  await db.schema
    .createIndex('credit_ledger_by_organization')
    .on('credit_ledger')
    .columns(['organization_id', 'seq'])
    .execute();
}

/**
 * SQLite cannot add a key column, so the table is built again with `seq` as its rowid (`integer
 * primary key`: each insert gets one more than the largest). Rows keep their rowids, which are
 * already in the order they were written (one writer at a time).
 */
async function sqliteUp(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('credit_ledger_next')
    .addColumn('seq', 'integer', (col) => col.primaryKey())
    .addColumn('id', 'text', (col) => col.notNull().unique())
    .addColumn('organization_id', 'text', (col) => col.notNull().references('organizations.id'))
    .addColumn('delta', 'bigint', (col) => col.notNull())
    .addColumn('balance_after', 'bigint', (col) => col.notNull())
    .addColumn('reason', 'text', (col) => col.notNull())
    .addColumn('reference', 'text')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  const columns = sql.raw('id, organization_id, delta, balance_after, reason, reference, created_at');
  await sql`insert into credit_ledger_next (seq, ${columns}) select rowid, ${columns} from credit_ledger`.execute(db);
  await db.schema.dropTable('credit_ledger').execute();
  await db.schema.alterTable('credit_ledger_next').renameTo('credit_ledger').execute();
}

/**
 * An identity column. Postgres kept no record of the order existing rows were written in, so they
 * are numbered in the order they were listed until now (time, then id); new rows follow them.
 */
async function postgresUp(db: Kysely<any>): Promise<void> {
  await sql`alter table credit_ledger add column seq bigint`.execute(db);
  await sql`
    update credit_ledger set seq = numbered.seq
    from (select id, row_number() over (order by created_at, id) as seq from credit_ledger) numbered
    where credit_ledger.id = numbered.id`.execute(db);
  await sql`alter table credit_ledger alter column seq set not null`.execute(db);
  await sql`alter table credit_ledger alter column seq add generated always as identity`.execute(db);
  await sql`select setval(pg_get_serial_sequence('credit_ledger', 'seq'), (select coalesce(max(seq), 0) + 1 from credit_ledger), false)`.execute(
    db,
  );
}
