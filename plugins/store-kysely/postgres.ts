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

/**
 * Holds one dedicated connection LISTENing for job notifications, reconnecting after a loss
 * (workers poll meanwhile, so a gap delays jobs but never loses them).
 */
async function listenForJobs(connectionString: string, listener: () => void): Promise<() => Promise<void>> {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async () => {
    const next = new pg.Client({ connectionString, types });
    next.on('notification', () => listener());
    next.on('error', () => {
      if (stopped) return;
      next.end().catch(() => {});
      retry = setTimeout(() => connect().catch(() => {}), 1_000);
    });
    await next.connect();
    await next.query(`LISTEN ${jobsChannel}`);
    client = next;
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
