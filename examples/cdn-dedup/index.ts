import path from 'node:path';
import { definePlugin } from 'visualizer/plugin';
import { createDedupCdn } from './dedup-cdn.ts';

export { collectGarbage, createDedupCdn, type DedupCdnOptions } from './dedup-cdn.ts';

export interface DedupPluginOptions {
  /** Directory for blobs and keys, relative to the data dir; `<dataDir>/cdn-dedup` by default. */
  dir?: string;
}

/**
 * The `dedup` image CDN, loaded by module path from the service's config file:
 *   { "plugins": { "cdn": "./node_modules/visualizer-cdn-dedup/index.ts" },
 *     "pluginOptions": { "dedup": { "dir": "images" } } }
 */
export default definePlugin<DedupPluginOptions, 'cdn'>({
  name: 'dedup',
  provides: ['cdn'],
  // Without a configSchema the kernel passes `pluginOptions.dedup` as written, so it is checked here.
  register({ options, config, logger }) {
    const { dir = 'cdn-dedup', ...unknown } = options;
    if (typeof dir !== 'string' || dir === '') throw new Error('pluginOptions.dedup.dir must be a non-empty string');
    if (Object.keys(unknown).length)
      throw new Error(`pluginOptions.dedup has unknown settings: ${Object.keys(unknown).join(', ')}`);
    const root = path.resolve(config.dataDir, dir);
    logger.info('dedup cdn: each distinct image is stored once', { root });
    // Nothing to dispose: every operation opens and closes its own files.
    return { cdn: createDedupCdn({ root, publicBaseUrl: config.publicUrl }) };
  },
});
