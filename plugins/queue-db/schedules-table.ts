import { sql } from '../store-kysely/library.ts';
import type { ScheduleRepository } from '../../kit/plugin.ts';
import type { Dialect, Executor } from '../store-kysely/library.ts';

/** The database's time in epoch milliseconds, so every process claims on one clock. */
const databaseNow = (dialect: Dialect) =>
  dialect === 'postgres'
    ? sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint`
    : sql<number>`cast((julianday('now') - 2440587.5) * 86400000 as integer)`;

/**
 * A tick that comes this much early still claims its run: one process's ticks wander by the
 * time its tick worker takes to start, and a strict check would skip every other run there.
 * A tenth of the interval, at most a second.
 */
const earlyTolerance = (intervalMs: number) => Math.min(1_000, Math.floor(intervalMs / 10));

export function scheduleRepository(db: Executor, dialect: Dialect): ScheduleRepository {
  return {
    async claimRun(name, intervalMs) {
      const now = databaseNow(dialect);
      const next = sql<number>`${now} + ${intervalMs - earlyTolerance(intervalMs)}`;
      // One statement: the first claim inserts, a later one updates only a run time that has come.
      // Concurrent claims serialize on the row, and the loser's condition sees the winner's time.
      const rows = await db
        .insertInto('scheduled_runs')
        .values({ name, next_run_at: next })
        .onConflict((conflict) =>
          conflict.column('name').doUpdateSet({ next_run_at: next }).where('scheduled_runs.next_run_at', '<=', now),
        )
        .returning('name')
        .execute();
      return rows.length === 1;
    },
  };
}
