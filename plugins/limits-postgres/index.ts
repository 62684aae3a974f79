import * as v from 'valibot';
import { definePlugin } from '../../kit/plugin.ts';
import { createPostgresLimits } from './postgres-limits.ts';

export { createPostgresLimits } from './postgres-limits.ts';

/**
 * Chosen as `postgres` for the limits port (`VISUALIZER_LIMITS=postgres`). It opens a small pool of
 * its own on `databaseUrl` (plugins do not reach into each other), on the tables migration 0017 made.
 */
export default definePlugin({
  name: 'limits-postgres',
  provides: ['limits'],
  configSchema: v.object({
    /** The Postgres database the store uses (DATABASE_URL), filled from config. */
    url: v.optional(
      v.pipe(v.string(), v.regex(/^(postgres|postgresql):\/\//, 'must start with postgres:// or postgresql://')),
    ),
  }),
  register({ options, logger }) {
    if (!options.url)
      throw new Error(
        'the postgres limits need the Postgres database: set DATABASE_URL (or choose limits memory or redis).',
      );
    const limits = createPostgresLimits(options.url, logger);
    return { limits, dispose: () => limits.close() };
  },
});
