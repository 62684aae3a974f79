import * as v from 'valibot';
import { definePlugin } from '../../kit/plugin.ts';
import { openSqlite } from '../store-kysely/sqlite.ts';

/** The store on one SQLite file, through the Kysely store in plugins/store-kysely (a library, not a plugin). */
export default definePlugin({
  name: 'store-sqlite',
  provides: ['persistence'],
  configSchema: v.object({
    /** Database file; config gives it relative to the data dir (`visualizer.db` by default), resolved before it arrives. */
    file: v.pipe(v.string(), v.minLength(1)),
    /** How long a write waits for another process's lock before failing as unavailable (503 over HTTP). */
    busyTimeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0)), 10_000),
  }),
  register({ options, logger }) {
    const persistence = openSqlite(options.file, { busyTimeoutMs: options.busyTimeoutMs, logger });
    return { persistence, dispose: () => persistence.close() };
  },
});
