import type { Kysely } from 'kysely';
import { withLockTimeout } from './create-index-concurrently.ts';

/**
 * The engine that rendered a generation (its name, as `render.engines` routes it), now that a
 * render may fall through to another engine than the first configured: the dashboard shows it.
 *
 * Safe under live traffic: a nullable column without a default (no rewrite, a brief exclusive
 * lock on `generations`). Generations the previous release completes meanwhile record none.
 */
export const liveSafe = true;

export async function up(db: Kysely<any>): Promise<void> {
  await withLockTimeout(db, 'generations', () =>
    db.schema.alterTable('generations').addColumn('render_engine', 'text').execute(),
  );
}
