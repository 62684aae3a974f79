import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import * as v from 'valibot';
import { definePlugin, type Persistence } from '../../kit/plugin.ts';
import type { Database } from './database.ts';
import { kyselyPersistence } from './kysely-persistence.ts';
import { jobsChannel } from './repositories/jobs.ts';

const INT8 = 20;
/** Timestamps and balances are bigint columns holding values well inside 2^53; read them as numbers. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** Socket errors of a server that is down or unreachable, and SQLSTATEs of one that will not serve now. */
const unavailableCodes = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE',
  '57P01', '57P02', '57P03', // admin_shutdown, crash_shutdown, cannot_connect_now
  '53000', '53100', '53200', '53300', // insufficient resources: disk full, out of memory, too many connections
]);
/** pg's own words for a connection it lost, or could not get from the pool in time. */
const unavailableMessages = /timeout exceeded when trying to connect|Connection terminated|is not queryable/i;

function isUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  // Class 08: connection exceptions.
  if (typeof code === 'string' && (unavailableCodes.has(code) || code.startsWith('08'))) return true;
  return error instanceof Error && unavailableMessages.test(error.message);
}

/** Waits before the n-th attempt to reconnect the listener: 1 s, 2 s, 4 s … capped at 30 s. */
const reconnectDelayMs = (attempt: number) => Math.min(30_000, 1_000 * 2 ** attempt);

/**
 * Holds one dedicated connection LISTENing for job notifications, reconnecting after a loss
 * until it succeeds (workers poll meanwhile, so a gap delays jobs but never loses them). The
 * first connection must succeed, so a worker pointed at a wrong database fails at start.
 */
async function listenForJobs(connectionString: string, connectTimeoutMs: number, listener: () => void): Promise<() => Promise<void>> {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async () => {
    // keepAlive: a server that vanishes without closing the socket is noticed too.
    const next = new pg.Client({ connectionString, types, keepAlive: true, connectionTimeoutMillis: connectTimeoutMs });
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

export function openPostgres(connectionString: string, { poolSize = 10, connectTimeoutMs = 5_000 } = {}): Persistence {
  // A request waits at most connectTimeoutMs for a connection (the server unreachable, or every
  // pooled one busy), then fails as unavailable instead of hanging.
  const pool = new pg.Pool({ connectionString, max: poolSize, types, connectionTimeoutMillis: connectTimeoutMs });
  // An idle client that loses its server must not crash the process; the next query reports it.
  pool.on('error', () => {});
  // Nor may one that is checked out: pg rejects its query and also emits 'error' on the client,
  // where the pool listens only while it is idle. Unheard, that event kills the process. (The
  // pool drops the broken client when it comes back.)
  pool.on('connect', (client) => client.on('error', () => {}));
  return {
    ...kyselyPersistence(new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), 'postgres', { unavailable: isUnavailable }),
    listenForJobs: (listener) => listenForJobs(connectionString, connectTimeoutMs, listener),
  };
}

export default definePlugin({
  name: 'postgres',
  provides: ['persistence'],
  configSchema: v.object({
    poolSize: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(500)), 10),
    /** How long a query waits for a connection before failing as unavailable (503 over HTTP). */
    connectTimeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 5_000),
  }),
  register({ options, config }) {
    if (!config.databaseUrl) throw new Error('The postgres plugin needs DATABASE_URL (config databaseUrl).');
    const persistence = openPostgres(config.databaseUrl, options);
    return { persistence, dispose: () => persistence.close() };
  },
});
