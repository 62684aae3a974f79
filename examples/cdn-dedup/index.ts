import { definePlugin } from 'visualizer/plugin';
import { createDedupCdn } from './dedup-cdn.ts';

export { collectGarbage, createDedupCdn, type DedupCdnOptions } from './dedup-cdn.ts';

export interface DedupPluginOptions {
  /** Directory for blobs and keys: `dir` as configured, relative to the data dir (`cdn-dedup` by default), resolved by the service. */
  dir: string;
  /** The service's public URL, under whose `/cdn/` it serves what this plugin stores; the service fills it in. */
  publicBaseUrl: string;
}

/**
 * The `dedup` image CDN, loaded by module path from the service's config file:
 *   { "plugins": { "cdn": "./node_modules/visualizer-cdn-dedup/index.ts" },
 *     "pluginOptions": { "dedup": { "dir": "images" } } }
 */
export default definePlugin<DedupPluginOptions, 'cdn'>({
  name: 'dedup',
  provides: ['cdn'],
  // A plugin sees only its own options: the service fills these two from its data dir and public URL.
  sharedSettings: { dir: { underDataDir: 'cdn-dedup' }, publicBaseUrl: { from: 'publicUrl' } },
  // Without a configSchema the kernel passes `pluginOptions.dedup` as written (and filled), so it is checked here.
  register({ options, logger }) {
    const { dir, publicBaseUrl, ...unknown } = options;
    if (typeof dir !== 'string' || dir === '') throw new Error('pluginOptions.dedup.dir must be a non-empty string');
    if (Object.keys(unknown).length)
      throw new Error(`pluginOptions.dedup has unknown settings: ${Object.keys(unknown).join(', ')}`);
    logger.info('dedup cdn: each distinct image is stored once', { root: dir });
    // Nothing to dispose: every operation opens and closes its own files.
    return { cdn: createDedupCdn({ root: dir, publicBaseUrl }) };
  },
});
