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
  register({ config, logger }) {
    if (!config.databaseUrl)
      throw new Error(
        'the postgres limits need the Postgres database: set DATABASE_URL (or choose limits memory or redis).',
      );
    const limits = createPostgresLimits(config.databaseUrl, logger);
    return { limits, dispose: () => limits.close() };
  },
});
