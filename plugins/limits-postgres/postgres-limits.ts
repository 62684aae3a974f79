import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres } from 'rate-limiter-flexible';
import {
  rateLimiterPerRule,
  rateWindow,
  reservingRateLimiter,
  type ConcurrencyCap,
  type Limits,
  type Logger,
  type RateLimiter,
  type RateRule,
} from '../../kit/plugin.ts';

/** Tables made by the store's migration 0017 (plugins/store-kysely/migrations). */
const ratesTable = 'limit_rates';
const slotsTable = 'limit_slots';

/** rate-limiter-flexible's key column is varchar(255); a longer key (a long visitor id) is hashed. */
const fitKey = (key: string) =>
  key.length <= 160 ? key : `sha256:${createHash('sha256').update(key).digest('base64url')}`;

/**
 * Limits in the Postgres database the deployment already has: rate-limiter-flexible's
 * RateLimiterPostgres for rates, a table of leased slots for caps. Every statement is unnamed and
 * every lock transaction-scoped, so this works through PgBouncer in transaction mode (which the
 * library's named prepared statements would not: its queries go through a client that drops the
 * names). Slot leases are read on the database's clock; rate windows on each process's clock, as
 * the library does.
 */
export function createPostgresLimits(connectionString: string, logger: Logger): Limits & { close(): Promise<void> } {
  // A few connections: each take is one short statement.
  const poolSize = 4;
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    connectionTimeoutMillis: 2_000,
    idleTimeoutMillis: 10_000,
  });
  pool.on('error', (error) => logger.warn('limits: a Postgres connection failed', { error: error.message }));
  const unnamed = {
    query: (query: { text: string; values?: unknown[] }) => pool.query({ text: query.text, values: query.values }),
  };

  const rateLimiter = (name: string, rule: RateRule): RateLimiter => {
    const window = rateWindow(rule);
    const limiter = new RateLimiterPostgres({
      storeClient: unnamed,
      storeType: 'pool',
      tableName: ratesTable,
      tableCreated: true,
      // Expired rows are deleted by this adapter's own sweep, once for every limiter.
      clearExpiredByTimeout: false,
      keyPrefix: name,
      // A key seen spent is refused from this process's memory until its window ends.
      inMemoryBlockOnConsumed: window.points,
      // While the database is away, this process counts alone.
      insuranceLimiter: new RateLimiterMemory({ keyPrefix: name, ...window }),
      ...window,
    });
    return reservingRateLimiter(limiter, rule, fitKey);
  };

  // Holders are `<instance>:<uuid>`, so that one statement frees a dead instance's slots.
  const instance = randomUUID();
  const concurrency = (name: string, limit: number, leaseMs: number): ConcurrencyCap => ({
    async tryAcquire(key) {
      const slotKey = `${name}:${key}`;
      const holder = `${instance}:${randomUUID()}`;
      const client = await pool.connect();
      let acquired: boolean;
      try {
        await client.query('begin');
        // One acquirer of a key at a time, so two cannot both see the last free slot.
        await client.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [slotKey]);
        await client.query(`delete from ${slotsTable} where slot_key = $1 and expires_at <= clock_timestamp()`, [
          slotKey,
        ]);
        const inserted = await client.query(
          `insert into ${slotsTable} (slot_key, holder, expires_at)
           select $1, $2, clock_timestamp() + $4 * interval '1 millisecond'
           where (select count(*) from ${slotsTable} where slot_key = $1) < $3`,
          [slotKey, holder, limit, leaseMs],
        );
        await client.query('commit');
        acquired = inserted.rowCount === 1;
        client.release();
      } catch (error) {
        // The connection's state is unknown: it is discarded rather than returned to the pool.
        client.release(error as Error);
        throw error;
      }
      if (!acquired) return null;
      return {
        async renew() {
          const renewed = await pool.query(
            `update ${slotsTable} set expires_at = clock_timestamp() + $3 * interval '1 millisecond'
             where slot_key = $1 and holder = $2 and expires_at > clock_timestamp()`,
            [slotKey, holder, leaseMs],
          );
          return renewed.rowCount === 1;
        },
        async release() {
          await pool.query(`delete from ${slotsTable} where slot_key = $1 and holder = $2`, [slotKey, holder]);
        },
      };
    },
  });

  // Windows long over and leases long expired; failures are retried at the next sweep.
  const sweep = setInterval(() => {
    pool.query(`delete from ${ratesTable} where expire < $1`, [Date.now() - 3_600_000]).catch(() => {});
    pool.query(`delete from ${slotsTable} where expires_at < clock_timestamp() - interval '1 hour'`).catch(() => {});
  }, 5 * 60_000);
  sweep.unref();

  return {
    rateLimiter: rateLimiterPerRule(rateLimiter),
    concurrency,
    instance,
    // The primary key leads with slot_key, so this scans the table: it runs only for a dead process,
    // over the slots held now and expired ones not yet swept (at most an hour of them).
    async releaseInstance(of) {
      const freed = await pool.query(`delete from ${slotsTable} where starts_with(holder, $1)`, [`${of}:`]);
      return freed.rowCount ?? 0;
    },
    poolStats: () => [
      { name: 'limits', total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: poolSize },
    ],
    close: async () => {
      clearInterval(sweep);
      await pool.end();
    },
  };
}
