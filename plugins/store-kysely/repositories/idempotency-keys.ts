import type { IdempotencyRepository } from '../../../core/ports/persistence.ts';
import type { Executor } from '../database.ts';

export function idempotencyRepository(db: Executor): IdempotencyRepository {
  return {
    async find(organizationId, key) {
      const row = await db
        .selectFrom('idempotency_keys')
        .select('generation_id')
        .where('organization_id', '=', organizationId)
        .where('key', '=', key)
        .executeTakeFirst();
      return row?.generation_id ?? null;
    },
    async bind(organizationId, key, generationId, at) {
      // On Postgres a concurrent insert of the same key waits for the other transaction, then
      // inserts nothing; the caller learns it lost the race and rolls back.
      const result = await db
        .insertInto('idempotency_keys')
        .values({ organization_id: organizationId, key, generation_id: generationId, created_at: at })
        .onConflict((conflict) => conflict.columns(['organization_id', 'key']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
    },
  };
}
