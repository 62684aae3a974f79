import path from 'node:path';
import * as v from 'valibot';
import { definePlugin } from '../../kit/plugin.ts';
import { openSqlite } from '../store-kysely/sqlite.ts';

/** The store on one SQLite file, through the Kysely store in plugins/store-kysely (a library, not a plugin). */
export default definePlugin({
  name: 'store-sqlite',
  provides: ['persistence'],
  configSchema: v.object({
    /** Database file; defaults to `visualizer.db` in the data dir. */
    file: v.optional(v.pipe(v.string(), v.minLength(1))),
    /** How long a write waits for another process's lock before failing as unavailable (503 over HTTP). */
    busyTimeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0)), 10_000),
  }),
  register({ options, config, logger }) {
    const file = options.file ? path.resolve(config.dataDir, options.file) : path.join(config.dataDir, 'visualizer.db');
    const persistence = openSqlite(file, { ...options, logger });
    return { persistence, dispose: () => persistence.close() };
  },
});
