import path from 'node:path';
import * as v from 'valibot';
import { definePlugin } from '../../kit/plugin.ts';
import { createLocalCdn, defaultStaleTempMs } from './local-cdn.ts';

export { createLocalCdn } from './local-cdn.ts';

export default definePlugin({
  name: 'cdn-local',
  provides: ['cdn'],
  configSchema: v.object({
    /** Directory for the objects, relative to the data dir; defaults to `<dataDir>/cdn`. */
    dir: v.optional(v.pipe(v.string(), v.minLength(1))),
    /** A write's temp file this old is the remains of a process that died mid-write; listing removes it. */
    staleTempMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0)), defaultStaleTempMs),
  }),
  register({ options, config }) {
    const cdn = createLocalCdn({
      root: path.resolve(config.dataDir, options.dir ?? 'cdn'),
      publicBaseUrl: config.publicUrl,
      staleTempMs: options.staleTempMs,
    });
    // Nothing to dispose: every operation opens and closes its own files.
    return { cdn };
  },
});
