import * as v from 'valibot';
import { definePlugin } from '../../kit/plugin.ts';
import { openPostgres } from '../store-kysely/postgres.ts';

/** The store on a Postgres database, through the Kysely store in plugins/store-kysely (a library, not a plugin). */
export default definePlugin({
  name: 'store-postgres',
  provides: ['persistence'],
  configSchema: v.object({
    poolSize: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(500)), 10),
    /** How long a query waits for a connection before failing as unavailable (503 over HTTP). */
    connectTimeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 5_000),
  }),
  register({ options, config }) {
    if (!config.databaseUrl) throw new Error('The postgres plugin needs DATABASE_URL (config databaseUrl).');
    const persistence = openPostgres(config.databaseUrl, { ...options, ...config.database });
    return { persistence, dispose: () => persistence.close() };
  },
});
