import type { SelectQueryBuilder } from 'kysely';
import type { Database, Executor } from '../database.ts';

type PagedTable = 'generations' | 'events' | 'webhook_endpoints' | 'widgets' | 'stores' | 'api_keys';

/**
 * Narrows a newest-first query to the rows strictly after the cursor row (by created_at, then id),
 * or to nothing when the cursor is not one of the organization's rows.
 */
export async function afterCursor<T extends PagedTable, O>(
  db: Executor,
  table: T,
  query: SelectQueryBuilder<Database, T, O>,
  organizationId: string,
  startingAfter: string | undefined,
): Promise<SelectQueryBuilder<Database, T, O> | null> {
  if (!startingAfter) return query;
  const cursor = await (db as Executor)
    .selectFrom(table as PagedTable)
    .select(['created_at', 'id'])
    .where('id', '=', startingAfter)
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  if (!cursor) return null;
  return (query as SelectQueryBuilder<Database, PagedTable, O>).where((eb) =>
    eb.or([
      eb('created_at', '<', cursor.created_at),
      eb.and([eb('created_at', '=', cursor.created_at), eb('id', '<', cursor.id)]),
    ]),
  ) as unknown as SelectQueryBuilder<Database, T, O>;
}
