import * as v from 'valibot';
import { definePlugin } from '../../kit/plugin.ts';
import { createLocalCdn, defaultStaleTempMs } from './local-cdn.ts';

export { createLocalCdn } from './local-cdn.ts';

export default definePlugin({
  name: 'cdn-local',
  provides: ['cdn'],
  configSchema: v.object({
    /** Directory for the objects; config gives it relative to the data dir (`<dataDir>/cdn` by default), resolved before it arrives. */
    dir: v.pipe(v.string(), v.minLength(1)),
    /** The service's public URL (`publicUrl`), under whose `/cdn/` the app serves the objects. */
    publicBaseUrl: v.pipe(v.string(), v.url('must be an absolute URL')),
    /** A write's temp file this old is the remains of a process that died mid-write; listing removes it. */
    staleTempMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0)), defaultStaleTempMs),
  }),
  register({ options }) {
    const cdn = createLocalCdn({
      root: options.dir,
      publicBaseUrl: options.publicBaseUrl,
      staleTempMs: options.staleTempMs,
    });
    // Nothing to dispose: every operation opens and closes its own files.
    return { cdn };
  },
});
