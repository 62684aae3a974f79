import { asFunction } from 'awilix';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import * as v from 'valibot';
import { definePlugin } from '../../core/plugin.ts';
import type { Database } from './database.ts';
import type { Persistence } from '../../core/ports/persistence.ts';
import { kyselyPersistence } from './kysely-persistence.ts';
import { jobsChannel } from './repositories/jobs.ts';

const INT8 = 20;
/** Timestamps and balances are bigint columns holding values well inside 2^53; read them as numbers. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** Waits before the n-th attempt to reconnect the listener: 1 s, 2 s, 4 s … capped at 30 s. */
const reconnectDelayMs = (attempt: number) => Math.min(30_000, 1_000 * 2 ** attempt);

/**
 * Holds one dedicated connection LISTENing for job notifications, reconnecting after a loss
 * until it succeeds (workers poll meanwhile, so a gap delays jobs but never loses them). The
 * first connection must succeed, so a worker pointed at a wrong database fails at start.
 */
async function listenForJobs(connectionString: string, listener: () => void): Promise<() => Promise<void>> {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async () => {
    // keepAlive: a server that vanishes without closing the socket is noticed too.
    const next = new pg.Client({ connectionString, types, keepAlive: true });
    let listening = false;
    let lost = false;
    const onLost = () => {
      if (!listening || lost) return;
      lost = true;
      next.end().catch(() => {});
      reconnect(0);
    };
    next.on('notification', () => listener());
    // 'error' is always listened to: unhandled, it would crash the process. Before LISTEN has
    // succeeded a failure also rejects connect(), whose caller decides about retrying.
    next.on('error', onLost);
    next.on('end', onLost);
    try {
      await next.connect();
      await next.query(`LISTEN ${jobsChannel}`);
    } catch (error) {
      await next.end().catch(() => {});
      throw error;
    }
    listening = true;
    if (stopped) await next.end().catch(() => {});
    else client = next;
  };
  const reconnect = (attempt: number) => {
    client = undefined;
    if (stopped) return;
    retry = setTimeout(() => {
      connect().then(
        // Jobs committed while nobody listened were not signalled: look for them now.
        () => listener(),
        () => reconnect(attempt + 1),
      );
    }, reconnectDelayMs(attempt));
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}

export function openPostgres(connectionString: string, poolSize = 10): Persistence {
  const pool = new pg.Pool({ connectionString, max: poolSize, types });
  // An idle client that loses its server must not crash the process; the next query reports it.
  pool.on('error', () => {});
  return {
    ...kyselyPersistence(new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), 'postgres'),
    listenForJobs: (listener) => listenForJobs(connectionString, listener),
  };
}

export default definePlugin({
  name: 'postgres',
  provides: ['persistence'],
  configSchema: v.object({
    poolSize: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(500)), 10),
  }),
  register({ container, options, config }) {
    if (!config.databaseUrl) throw new Error('The postgres plugin needs DATABASE_URL (config databaseUrl).');
    const url = config.databaseUrl;
    container.register({
      persistence: asFunction(() => openPostgres(url, options.poolSize))
        .singleton()
        .disposer((persistence) => persistence.close()),
    });
  },
});
