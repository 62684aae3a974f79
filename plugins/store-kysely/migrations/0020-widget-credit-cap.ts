import type { Kysely } from 'kysely';
import { sql } from '../kysely.ts';
import { withLockTimeout } from './create-index-concurrently.ts';

/**
 * A widget's daily credit cap, and what each widget used per UTC day: generations made (failed
 * ones included) and credits spent (charged, less refunded). A generation is counted in the
 * transaction that debits its credits, by one conditional upsert that also checks both daily
 * caps, and a refund gives the credits back in the refund's own transaction: so the caps hold
 * across every process on the database, and follow the credits actually spent.
 *
 * The days already begun are filled in from the widgets' generations (today and yesterday, so a
 * migration run around midnight UTC still fills today).
 *
 * Safe under live traffic: a nullable column (no rewrite, a brief exclusive lock on `widgets`, a
 * small table) and a new table. Widget generations the previous release makes while it still runs
 * are not counted in the new table: for that while, today's usage is short by them.
 */
export const liveSafe = true;

const dayMs = 86_400_000;

export async function up(db: Kysely<any>): Promise<void> {
  await withLockTimeout(db, 'widgets', () =>
    db.schema.alterTable('widgets').addColumn('daily_credit_cap', 'integer').execute(),
  );
  await db.schema
    .createTable('widget_daily_usage')
    .addColumn('widget_id', 'text', (col) => col.notNull().references('widgets.id'))
    // Days since 1970-01-01, UTC.
    .addColumn('day', 'integer', (col) => col.notNull())
    .addColumn('generations', 'integer', (col) => col.notNull())
    .addColumn('credits', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('widget_daily_usage_pk', ['widget_id', 'day'])
    .execute();
  const since = (Math.floor(Date.now() / dayMs) - 1) * dayMs;
  const day = sql`created_at / ${sql.lit(dayMs)}`;
  await sql`insert into widget_daily_usage (widget_id, day, generations, credits)
    select widget_id, ${day}, count(*), sum(case when status = 'failed' then 0 else credits_charged end)
    from generations
    where widget_id is not null and created_at >= ${since}
    group by widget_id, ${day}`.execute(db);
}
