import { sql } from 'kysely';
import type { JobRepository, Persistence } from '../../../core/ports/persistence.ts';
import type { Executor } from '../database.ts';

/** The channel Postgres workers LISTEN on; a NOTIFY sent inside a transaction arrives at commit. */
export const jobsChannel = 'visualizer_jobs';

export function jobRepository(db: Executor, dialect: Persistence['dialect']): JobRepository {
  return {
    async enqueue(job) {
      await db
        .insertInto('jobs')
        .values({ id: job.id, kind: job.kind, payload: JSON.stringify(job.payload), run_at: job.runAt, attempts: 0, created_at: job.createdAt })
        .execute();
      if (dialect === 'postgres') await sql`select pg_notify(${jobsChannel}, ${job.kind})`.execute(db);
    },

    async claim({ kinds, workerId, now, leaseMs, limit }) {
      if (kinds.length === 0 || limit <= 0) return [];
      // A claimed job's run time moves to the end of its lease (see below), so "due" is one index
      // range: the claim never steps over jobs that are running. The lease check is kept for rows
      // claimed before that rule.
      let due = db
        .selectFrom('jobs')
        .select('id')
        .where('kind', 'in', kinds)
        .where('run_at', '<=', now)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
        .orderBy('run_at')
        .limit(limit);
      // Postgres: rows another worker is claiming right now are skipped, not waited for.
      // SQLite: BEGIN IMMEDIATE already serializes claims across processes.
      if (dialect === 'postgres') due = due.forUpdate().skipLocked();
      const rows = await db
        .updateTable('jobs')
        // If the worker dies, the job is due again when its lease runs out.
        .set({ locked_by: workerId, locked_until: now + leaseMs, run_at: now + leaseMs, attempts: sql`attempts + 1` })
        .where('id', 'in', due)
        .returning(['id', 'kind', 'payload', 'attempts'])
        .execute();
      return rows.map((row) => ({ id: row.id, kind: row.kind, payload: JSON.parse(row.payload), attempts: Number(row.attempts) }));
    },

    async complete(id, workerId) {
      const result = await db.deleteFrom('jobs').where('id', '=', id).where('locked_by', '=', workerId).executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },

    async reschedule(id, workerId, runAt, error) {
      const result = await db
        .updateTable('jobs')
        .set({ locked_by: null, locked_until: null, run_at: runAt, last_error: error.slice(0, 2000) })
        .where('id', '=', id)
        .where('locked_by', '=', workerId)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async extendLeases(ids, workerId, until) {
      if (ids.length === 0) return;
      await db.updateTable('jobs').set({ locked_until: until, run_at: until }).where('id', 'in', ids).where('locked_by', '=', workerId).execute();
    },

    async pending(kinds) {
      let query = db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('count'));
      if (kinds?.length) query = query.where('kind', 'in', kinds);
      const row = await query.executeTakeFirstOrThrow();
      return Number(row.count);
    },
  };
}
