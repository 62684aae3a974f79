import { sql } from '../store-kysely/library.ts';
import { jobsChannel, type JobRepository } from '../../kit/plugin.ts';
import { databaseNow, prepared, preparedInsert, type Dialect, type Executor } from '../store-kysely/library.ts';
import { deadJobMethods } from './dead-jobs-table.ts';

const insertJob = preparedInsert('jobs');
/** Postgres: the run time is the caller's delay from the server's now (database-clock.ts). */
const insertJobOnDatabaseClock = prepared(
  (db, values: { id: string; kind: string; payload: string; delayMs: number; createdAt: number }) =>
    db.insertInto('jobs').values({
      id: values.id,
      kind: values.kind,
      payload: values.payload,
      run_at: sql<number>`${databaseNow} + ${values.delayMs}::int8`,
      attempts: 0,
      failures: 0,
      created_at: values.createdAt,
    }),
);
const completeJob = prepared((db, values: { id: string; workerId: string }) =>
  db.deleteFrom('jobs').where('id', '=', values.id).where('locked_by', '=', values.workerId),
);

/**
 * Leases due jobs of `kinds.length` kinds (one per lane, in practice). A claimed job's run time
 * moves to the end of its lease, so "due" is one index range and a claim never steps over running
 * jobs; if the worker dies, the job is due again when its lease runs out. The lease check is kept
 * for rows claimed before that rule. A job still locked when claimed lost its last lease: that run
 * counts as a failure, so a job that kills its worker every time is not retried for ever.
 */
function claimQuery(kindCount: number) {
  type Values = { workerId: string; now: number; leaseMs: number; leaseEnd: number; limit: number } & Record<
    `kind${number}`,
    string
  >;
  return prepared((db, values: Values, dialect) => {
    // Postgres measures due times and leases on its own clock; SQLite on the caller's.
    const now = dialect === 'postgres' ? databaseNow : values.now;
    const leaseEnd = dialect === 'postgres' ? sql<number>`${databaseNow} + ${values.leaseMs}::int8` : values.leaseEnd;
    let due = db
      .selectFrom('jobs')
      .select('id')
      .where(
        'kind',
        'in',
        Array.from({ length: kindCount }, (_, index) => values[`kind${index}`]!),
      )
      .where('run_at', '<=', now)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
      .orderBy('run_at')
      .limit(values.limit);
    // Postgres: rows another worker is claiming right now are skipped, not waited for.
    // SQLite: BEGIN IMMEDIATE already serializes claims across processes.
    if (dialect === 'postgres') due = due.forUpdate().skipLocked();
    return db
      .updateTable('jobs')
      .set({
        locked_by: values.workerId,
        locked_until: leaseEnd,
        run_at: leaseEnd,
        attempts: sql`attempts + 1`,
        failures: sql`failures + case when locked_by is null then 0 else 1 end`,
      })
      .where('id', 'in', due)
      .returning(['id', 'kind', 'payload', 'attempts', 'failures']);
  });
}
const claimQueries = new Map<number, ReturnType<typeof claimQuery>>();

export function jobRepository(db: Executor, dialect: Dialect): JobRepository {
  return {
    async enqueue(job) {
      if (dialect === 'postgres') {
        const delayMs = Math.round(job.runAt - job.createdAt);
        await insertJobOnDatabaseClock(db, dialect, {
          id: job.id,
          kind: job.kind,
          payload: JSON.stringify(job.payload),
          delayMs,
          createdAt: job.createdAt,
        });
        await sql`select pg_notify(${jobsChannel}, ${job.kind})`.execute(db);
        return;
      }
      await insertJob(db, dialect, {
        id: job.id,
        kind: job.kind,
        payload: JSON.stringify(job.payload),
        run_at: job.runAt,
        attempts: 0,
        failures: 0,
        locked_by: null,
        locked_until: null,
        last_error: null,
        created_at: job.createdAt,
      });
    },

    async claim({ kinds, workerId, now, leaseMs, limit }) {
      if (kinds.length === 0 || limit <= 0) return [];
      let query = claimQueries.get(kinds.length);
      if (!query) claimQueries.set(kinds.length, (query = claimQuery(kinds.length)));
      const kindValues = Object.fromEntries(kinds.map((kind, index) => [`kind${index}`, kind]));
      const { rows } = await query(db, dialect, {
        workerId,
        now,
        leaseMs,
        leaseEnd: now + leaseMs,
        limit,
        ...kindValues,
      });
      return rows.map((row) => ({
        id: row.id,
        kind: row.kind,
        payload: JSON.parse(row.payload),
        attempts: Number(row.attempts),
        failures: Number(row.failures),
      }));
    },

    async complete(id, workerId) {
      const result = await completeJob(db, dialect, { id, workerId });
      return Number(result.numAffectedRows) === 1;
    },

    async reschedule(id, workerId, { runAt, now, error, failed }) {
      const result = await db
        .updateTable('jobs')
        .set({
          locked_by: null,
          locked_until: null,
          run_at: dialect === 'postgres' ? sql<number>`${databaseNow} + ${Math.round(runAt - now)}::int8` : runAt,
          last_error: error.slice(0, 2000),
          failures: failed ? sql`failures + 1` : sql`failures`,
        })
        .where('id', '=', id)
        .where('locked_by', '=', workerId)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async extendLeases(ids, workerId, { now, leaseMs }) {
      if (ids.length === 0) return;
      const until = dialect === 'postgres' ? sql<number>`${databaseNow} + ${leaseMs}::int8` : now + leaseMs;
      await db
        .updateTable('jobs')
        .set({ locked_until: until, run_at: until })
        .where('id', 'in', ids)
        .where('locked_by', '=', workerId)
        .execute();
    },

    async hasUnfinished(kind, fields) {
      // The fields are read from the payload's JSON text (jobs of one kind are few: `jobs_due` finds them).
      let query = db.selectFrom('jobs').select('id').where('kind', '=', kind);
      for (const [name, value] of Object.entries(fields)) {
        if (!/^\w+$/.test(name))
          throw new Error(
            `hasUnfinished: a payload field is named by letters, digits and _, not ${JSON.stringify(name)}`,
          );
        const field =
          dialect === 'postgres'
            ? sql<string>`(payload::jsonb ->> ${name}::text)`
            : sql<string>`json_extract(payload, ${`$.${name}`})`;
        query = query.where(field, '=', value);
      }
      return (await query.limit(1).executeTakeFirst()) !== undefined;
    },

    async pending(kinds) {
      let query = db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('count'));
      if (kinds?.length) query = query.where('kind', 'in', kinds);
      const row = await query.executeTakeFirstOrThrow();
      return Number(row.count);
    },

    // One pass over the table, which holds only unfinished jobs (a finished one is deleted).
    // Postgres measures due times on its own clock, as claims do.
    async stats(callerNow) {
      const now = dialect === 'postgres' ? databaseNow : sql<number>`${callerNow}`;
      const due = sql`run_at <= ${now} and (locked_until is null or locked_until < ${now})`;
      const rows = await db
        .selectFrom('jobs')
        .select((eb) => [
          'kind',
          eb.fn.countAll().as('total'),
          sql`sum(case when ${due} then 1 else 0 end)`.as('due'),
          sql`sum(case when locked_until >= ${now} then 1 else 0 end)`.as('running'),
          sql`max(case when ${due} then ${now} - run_at else 0 end)`.as('lag_ms'),
        ])
        .groupBy('kind')
        .execute();
      return rows.map((row) => {
        const [total, due, running] = [Number(row.total), Number(row.due), Number(row.running)];
        return { kind: row.kind, due, running, scheduled: total - due - running, lagMs: Number(row.lag_ms ?? 0) };
      });
    },

    ...deadJobMethods(db, dialect),
  };
}
