import { sql } from './kysely.ts';

/**
 * The Postgres server's time in epoch milliseconds, as the statement started (truncated like
 * `Date.now()`). Job run times and leases on Postgres are measured on this one clock that every
 * host shares, so a worker whose own clock is off neither steals live leases nor leaves dead ones;
 * callers' times are read as offsets from their own `now`. SQLite (one host) uses the Clock port.
 */
export const databaseNow = sql<number>`floor(extract(epoch from statement_timestamp()) * 1000)::int8`;
