import type { AnyPlugin } from '../kit/plugin.ts';

/**
 * The plugins that ship with Visualizer. Each key is the plugin's one name, `<role>-<choice>`: its
 * folder and its `plugin.name` (test/plugin-names.test.ts checks all three agree). Config chooses
 * one by `<choice>` within its port, which the plugin host turns into this key
 * (config/port-names.ts, `builtinPluginName`). Third-party plugins are named by module path instead.
 */
export const builtinPlugins: Record<string, () => Promise<{ default: AnyPlugin }>> = {
  'store-sqlite': () => import('./store-sqlite/index.ts'),
  'store-postgres': () => import('./store-postgres/index.ts'),
  'clock-system': () => import('./clock-system/index.ts'),
  'ids-random': () => import('./ids-random/index.ts'),
  'limits-memory': () => import('./limits-memory/index.ts'),
  'limits-redis': () => import('./limits-redis/index.ts'),
  'limits-postgres': () => import('./limits-postgres/index.ts'),
  'cdn-local': () => import('./cdn-local/index.ts'),
  'cdn-s3': () => import('./cdn-s3/index.ts'),
  'renderer-mock': () => import('./renderer-mock/index.ts'),
  'renderer-gemini': () => import('./renderer-gemini/index.ts'),
  'renderer-fashn': () => import('./renderer-fashn/index.ts'),
  'renderer-fal': () => import('./renderer-fal/index.ts'),
  'renderer-replicate': () => import('./renderer-replicate/index.ts'),
  'credentials-c2pa': () => import('./credentials-c2pa/index.ts'),
  'queue-db': () => import('./queue-db/index.ts'),
  'queue-pgboss': () => import('./queue-pgboss/index.ts'),
  'transport-http': () => import('./transport-http/index.ts'),
  'scheduler-bree': () => import('./scheduler-bree/index.ts'),
};
