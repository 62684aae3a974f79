import type { Kysely } from 'kysely';
import { sql, SqliteIntrospector } from '../kysely.ts';

/**
 * What the dashboard reads. A generation's detail view lists its events, so an event stores the id
 * of the generation it reports (filled in here for the events already written, from their bodies)
 * with an index on it. The gallery filters by status, which the index by organization and time
 * could serve only by reading past every generation of another status: a failed one among
 * thousands of complete ones would be a long walk.
 *
 * On Postgres these are plain `create index`, which locks the table against writes while it is
 * built: quick on the tables this runs on today; a large installation would build them
 * `concurrently` by hand before deploying (the migration then finds them and skips them).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').addColumn('generation_id', 'text').execute();
  // Every event so far reports a generation, whose resource is the body's `data`.
  const generationIdOfBody =
    db.introspection instanceof SqliteIntrospector
      ? sql`json_extract(body, '$.data.id')`
      : sql`(body::jsonb) -> 'data' ->> 'id'`;
  await sql`update events set generation_id = ${generationIdOfBody} where type like 'generation.%'`.execute(db);
  await db.schema
    .createIndex('events_by_generation')
    .ifNotExists()
    .on('events')
    .columns(['organization_id', 'generation_id', 'created_at', 'id'])
    .where('generation_id', 'is not', null)
    .execute();
  await db.schema
    .createIndex('generations_by_status')
    .ifNotExists()
    .on('generations')
    .columns(['organization_id', 'status', 'created_at', 'id'])
    .execute();
}
