import * as v from 'valibot';
import { definePlugin } from '../../kit/plugin.ts';
import { openPostgres } from '../store-kysely/postgres.ts';

const postgresUrl = v.pipe(
  v.string(),
  v.regex(/^(postgres|postgresql):\/\//, 'must start with postgres:// or postgresql://'),
);

/** The store on a Postgres database, through the Kysely store in plugins/store-kysely (a library, not a plugin). */
export default definePlugin({
  name: 'store-postgres',
  provides: ['persistence'],
  configSchema: v.object({
    /** The database (DATABASE_URL), filled from config like the next two. */
    url: v.optional(postgresUrl),
    /** Straight to the server when `url` is a pooler (DATABASE_DIRECT_URL). */
    directUrl: v.optional(postgresUrl),
    /** `url` is a transaction-mode pooler (DATABASE_POOLED). */
    pooled: v.optional(v.boolean(), false),
    poolSize: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(500)), 10),
    /** How long a query waits for a connection before failing as unavailable (503 over HTTP). */
    connectTimeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 5_000),
  }),
  register({ options: { url, ...options } }) {
    if (!url) throw new Error('The postgres store needs DATABASE_URL (config databaseUrl).');
    const persistence = openPostgres(url, options);
    return { persistence, dispose: () => persistence.close() };
  },
});
