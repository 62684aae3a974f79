import type { AnyPlugin } from '../kit/plugin.ts';

/** The plugins that ship with Visualizer, by the name config uses. Third-party plugins are named by module path instead. */
export const builtinPlugins: Record<string, () => Promise<{ default: AnyPlugin }>> = {
  sqlite: () => import('./store-kysely/sqlite.ts'),
  postgres: () => import('./store-kysely/postgres.ts'),
  system: () => import('./clock-system/index.ts'),
  random: () => import('./ids-random/index.ts'),
  db: () => import('./queue-db/index.ts'),
  pgboss: () => import('./queue-pgboss/index.ts'),
  local: () => import('./cdn-local/index.ts'),
  s3: () => import('./cdn-s3/index.ts'),
  mock: () => import('./renderer-mock/index.ts'),
  gemini: () => import('./renderer-gemini/index.ts'),
  fashn: () => import('./renderer-fashn/index.ts'),
  fal: () => import('./renderer-fal/index.ts'),
  replicate: () => import('./renderer-replicate/index.ts'),
  c2pa: () => import('./credentials-c2pa/index.ts'),
  http: () => import('./transport-http/index.ts'),
  bree: () => import('./scheduler-bree/index.ts'),
  memory: () => import('./limits-memory/index.ts'),
  redis: () => import('./limits-redis/index.ts'),
  // Config names it `postgres` for the limits port, as the store is for persistence (see plugin-host).
  'limits:postgres': () => import('./limits-postgres/index.ts'),
};
