import * as v from 'valibot';
import { definePlugin } from '../../kit/plugin.ts';
import { createPgBossQueue } from './pgboss-queue.ts';

const positive = v.pipe(v.number(), v.integer(), v.minValue(1));

/**
 * The job queue on pg-boss, in the Postgres database of the `store-postgres` plugin (its
 * jobs are sent through the domain write's own transaction, so that store is required).
 */
export default definePlugin({
  name: 'queue-pgboss',
  provides: ['queue'],
  configSchema: v.object({
    schema: v.optional(
      v.pipe(v.string(), v.regex(/^[a-z_][a-z0-9_]*$/, 'must be a lower-case SQL identifier')),
      'pgboss',
    ),
    leaseMs: v.optional(positive, 60_000),
    pollIntervalMs: v.optional(positive, 1_000),
    maxAttempts: v.optional(positive, 10),
    retryDelayMs: v.optional(positive, 1_000),
    maintenanceIntervalSeconds: v.optional(positive, 30),
    keepFailedDays: v.optional(positive, 90),
    /** Wakes idle workers of every process through Postgres NOTIFY when a job commits (see PgBossQueueOptions). */
    wakeOtherProcesses: v.optional(v.boolean(), true),
  }),
  register({ options, logger, port }) {
    const queue = createPgBossQueue({ persistence: port('persistence'), clock: port('clock'), logger }, options);
    return { queue, dispose: () => queue.stop() };
  },
});
