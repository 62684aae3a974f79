import type { Kysely } from 'kysely';
import { sql, SqliteIntrospector } from '../kysely.ts';

/**
 * The tables of the `postgres` limits adapter (plugins/limits-postgres): rate windows in
 * rate-limiter-flexible's own layout, and leased concurrency slots. Only on Postgres: SQLite is a
 * single-host database, whose one process keeps its limits in memory.
 *
 * Safe under live traffic: new tables no running code reads.
 */
export const liveSafe = true;

export async function up(db: Kysely<any>): Promise<void> {
  if (db.introspection instanceof SqliteIntrospector) return;
  await sql`create table if not exists limit_rates (key varchar(255) primary key, points integer not null default 0, expire bigint)`.execute(
    db,
  );
  await sql`create table if not exists limit_slots (
    slot_key text not null,
    holder text not null,
    expires_at timestamptz not null,
    primary key (slot_key, holder)
  )`.execute(db);
}
