import type { Cradle } from '../core/cradle.ts';
import type { ProcessRecord } from '../core/ports/queue-tables/index.ts';

/**
 * The most connections this process opens to the database at once: every pool's size (the
 * store's, and the limits' when they live in Postgres), and the session a process with workers
 * keeps to LISTEN for jobs. Recorded in the process registry, so each process can add up the
 * cluster's.
 */
export function connectionsOf(
  { persistence, limits }: Pick<Cradle, 'persistence' | 'limits'>,
  { runsWorkers }: { runsWorkers: boolean },
): number {
  const pools = [...(persistence.poolStats?.() ?? []), ...(limits.poolStats?.() ?? [])];
  const listens = runsWorkers && persistence.listenForJobs !== undefined;
  return pools.reduce((sum, pool) => sum + pool.max, 0) + (listens ? 1 : 0);
}

/**
 * Why the live processes cannot all get their connections, when their pools together may open more
 * than the server accepts (`limit`, undefined behind a pooler): at peak the server then refuses
 * some, and their requests fail as `database_unavailable`. Processes of a release that does not
 * record its connections are left out of the sum.
 */
export function connectionBudgetWarning(live: ProcessRecord[], limit: number | undefined): string | undefined {
  if (limit === undefined) return undefined;
  const counted = live.flatMap(({ details }) => (typeof details.connections === 'number' ? [details.connections] : []));
  const total = counted.reduce((sum, connections) => sum + connections, 0);
  if (total <= limit) return undefined;
  return (
    `The ${counted.length} processes on this database may open ${total} connections together (each its store's poolSize, its Postgres limits' pool and its LISTEN session), ` +
    `but the server accepts ${limit} from this role on this database: at peak it refuses some, and requests fail with database_unavailable. ` +
    `Lower pluginOptions.store-postgres.poolSize, raise the server's max_connections (or the role's or database's connection limit), ` +
    `or put PgBouncer in transaction mode in front of Postgres (docs/deployment.md "Sizing the connection pools").`
  );
}
