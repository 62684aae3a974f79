import { sql } from '../store-kysely/library.ts';
import type { DeadJob, JobRepository } from '../../kit/plugin.ts';
import type { Database, Dialect, Executor } from '../store-kysely/library.ts';

const deadJob = (row: Database['dead_jobs']): DeadJob => ({
  id: row.id,
  kind: row.kind,
  payload: JSON.parse(row.payload),
  attempts: Number(row.attempts),
  failures: Number(row.failures),
  lastError: row.last_error,
  createdAt: Number(row.created_at),
  diedAt: Number(row.died_at),
});

/** The dead-letter half of the job repository: jobs given up, kept in `dead_jobs` (migration 0015). */
export function deadJobMethods(
  db: Executor,
  dialect: Dialect,
): Pick<JobRepository, 'bury' | 'recordDead' | 'listDead' | 'takeDead' | 'pruneDead'> {
  return {
    async bury(id, workerId, { error, diedAt }) {
      const lastError = error.slice(0, 2000);
      // The run that failed counts among the recorded failures.
      if (dialect === 'postgres') {
        // One statement, atomic even outside a transaction.
        const result = await sql`
          with moved as (delete from jobs where id = ${id} and locked_by = ${workerId} returning id, kind, payload, attempts, failures, created_at)
          insert into dead_jobs (id, kind, payload, attempts, failures, last_error, created_at, died_at)
          select id, kind, payload, attempts, failures + 1, ${lastError}, created_at, ${diedAt} from moved`.execute(db);
        return Number(result.numAffectedRows) === 1;
      }
      const copied = await db
        .insertInto('dead_jobs')
        .columns(['id', 'kind', 'payload', 'attempts', 'failures', 'last_error', 'created_at', 'died_at'])
        .expression((eb) =>
          eb
            .selectFrom('jobs')
            .select([
              'id',
              'kind',
              'payload',
              'attempts',
              sql<number>`failures + 1`.as('failures'),
              sql<string>`${lastError}`.as('last_error'),
              'created_at',
              sql<number>`${diedAt}`.as('died_at'),
            ])
            .where('id', '=', id)
            .where('locked_by', '=', workerId),
        )
        .executeTakeFirst();
      if (Number(copied.numInsertedOrUpdatedRows) !== 1) return false;
      await db.deleteFrom('jobs').where('id', '=', id).execute();
      return true;
    },

    async recordDead(job) {
      await db
        .insertInto('dead_jobs')
        .values({
          id: job.id,
          kind: job.kind,
          payload: JSON.stringify(job.payload),
          attempts: job.attempts,
          failures: job.failures,
          last_error: job.lastError?.slice(0, 2000) ?? null,
          created_at: job.createdAt,
          died_at: job.diedAt,
        })
        .execute();
    },

    async listDead({ kind, limit }) {
      let query = db.selectFrom('dead_jobs').selectAll().orderBy('died_at', 'desc').orderBy('id', 'desc').limit(limit);
      if (kind !== undefined) query = query.where('kind', '=', kind);
      return (await query.execute()).map(deadJob);
    },

    async takeDead({ id, kind }) {
      let query = db.deleteFrom('dead_jobs');
      if (id !== undefined) query = query.where('id', '=', id);
      if (kind !== undefined) query = query.where('kind', '=', kind);
      const rows = await query.returningAll().execute();
      return rows.map(deadJob).sort((a, b) => a.diedAt - b.diedAt);
    },

    async pruneDead(before, limit) {
      const oldest = db
        .selectFrom('dead_jobs')
        .select('id')
        .where('died_at', '<', before)
        .orderBy('died_at')
        .limit(limit);
      const deleted = await db.deleteFrom('dead_jobs').where('id', 'in', oldest).executeTakeFirst();
      return Number(deleted.numDeletedRows);
    },
  };
}
