import { Kysely, PostgresDialect } from './kysely.ts';
import pg from 'pg';
import { jobsChannel, type Persistence } from '../../kit/plugin.ts';
import type { Database } from './database.ts';
import { kyselyPersistence } from './kysely-persistence.ts';

const INT8 = 20;
/** Timestamps and balances are bigint columns holding values well inside 2^53; read them as numbers. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** Socket errors of a server that is down or unreachable, and SQLSTATEs of one that will not serve now. */
const unavailableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03', // admin_shutdown, crash_shutdown, cannot_connect_now
  '53000',
  '53100',
  '53200',
  '53300', // insufficient resources: disk full, out of memory, too many connections
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
async function listenForJobs(
  connectionString: string,
  connectTimeoutMs: number,
  listener: (kind?: string) => void,
): Promise<() => Promise<void>> {
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
    // The payload is the job's kind (repositories/jobs.ts), so only the lane working it wakes.
    next.on('notification', (message) => listener(message.payload || undefined));
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

/**
 * The connections this role may open on this database. A superuser may take the reserved slots and
 * is held to no role or database limit; a negative limit means none; `reserved_connections` is
 * Postgres 16's (unset before it).
 */
async function serverConnectionLimit(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{
    max: number;
    reserved: number;
    superuser: boolean;
    role: number;
    database: number;
  }>(
    `select current_setting('max_connections')::int as max,
            current_setting('superuser_reserved_connections')::int
              + coalesce(nullif(current_setting('reserved_connections', true), '')::int, 0) as reserved,
            r.rolsuper as superuser, r.rolconnlimit as role, d.datconnlimit as database
       from pg_roles r, pg_database d
      where r.rolname = current_user and d.datname = current_database()`,
  );
  const { max, reserved, superuser, role, database } = rows[0]!;
  if (superuser) return max;
  return Math.min(max - reserved, ...[role, database].filter((limit) => limit >= 0));
}

/** Why `migrate` refuses behind a transaction-mode pooler without a direct URL. */
export const migrateNeedsDirectUrl =
  'DATABASE_URL points at a transaction-mode connection pooler (DATABASE_POOLED=true), through which migrations cannot hold their session lock: ' +
  'set DATABASE_DIRECT_URL to a URL that reaches the Postgres server directly (not through the pooler) and run `visualizer migrate` again.';

export interface PostgresOptions {
  poolSize?: number;
  connectTimeoutMs?: number;
  /** Straight to the server, for what needs a session of its own: LISTEN, and `migrate` (its advisory lock, its index builds). */
  directUrl?: string;
  /**
   * `connectionString` is a transaction-mode pooler (PgBouncer): consecutive statements outside a
   * transaction may run on different server sessions. Without `directUrl`, there is then no
   * LISTEN (workers poll) and `migrate` refuses while migrations are pending.
   */
  pooled?: boolean;
}

/** Runs `work` (a migration) on a short-lived pool of its own on `url`, closed afterwards. */
async function withOwnPool<T>(
  url: string,
  connectTimeoutMs: number,
  work: (db: Kysely<Database>) => Promise<T>,
): Promise<T> {
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({
      pool: new pg.Pool({ connectionString: url, max: 2, types, connectionTimeoutMillis: connectTimeoutMs }),
    }),
  });
  try {
    return await work(db);
  } finally {
    await db.destroy();
  }
}

export function openPostgres(
  connectionString: string,
  { poolSize = 10, connectTimeoutMs = 5_000, directUrl, pooled = false }: PostgresOptions = {},
): Persistence {
  // A request waits at most connectTimeoutMs for a connection (the server unreachable, or every
  // pooled one busy), then fails as unavailable instead of hanging.
  const pool = new pg.Pool({ connectionString, max: poolSize, types, connectionTimeoutMillis: connectTimeoutMs });
  // An idle client that loses its server must not crash the process; the next query reports it.
  pool.on('error', () => {});
  // Nor may one that is checked out: pg rejects its query and also emits 'error' on the client,
  // where the pool listens only while it is idle. Unheard, that event kills the process. (The
  // pool drops the broken client when it comes back.)
  pool.on('connect', (client) => client.on('error', () => {}));
  // What needs a session goes straight to the server; through a transaction-mode pooler it cannot
  // (LISTEN would hear nothing, a session lock would stay on whichever server connection took it).
  const sessionUrl = directUrl ?? (pooled ? undefined : connectionString);
  const persistence = kyselyPersistence(new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), 'postgres', {
    unavailable: isUnavailable,
    ...(directUrl && {
      migrateOn: <T>(work: (db: Kysely<Database>) => Promise<T>) => withOwnPool(directUrl, connectTimeoutMs, work),
    }),
  });
  if (!sessionUrl) {
    // Reading what is pending works through the pooler; so commands that migrate first (`orgs`,
    // `keys` …) still work on a current schema. Applying anything needs the direct URL.
    const { pendingMigrations } = persistence;
    persistence.migrate = async () => {
      if ((await pendingMigrations()).length === 0) return { applied: [] };
      throw new Error(migrateNeedsDirectUrl);
    };
  }
  return {
    ...persistence,
    // Without a session, workers find jobs by polling (pollIntervalMs of the queue).
    ...(sessionUrl && {
      listenForJobs: (listener: (kind?: string) => void) => listenForJobs(sessionUrl, connectTimeoutMs, listener),
    }),
    poolStats: () => [
      { name: 'main', total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: poolSize },
    ],
    connectionLimit: async () => (pooled ? undefined : await serverConnectionLimit(pool)),
  };
}
