import type { IdempotencyRepository } from '../../../kit/plugin.ts';
import type { Dialect } from '../dialect.ts';
import type { Executor } from '../database.ts';
import { prepared } from '../prepared.ts';

const boundTo = prepared((db, values: { organizationId: string; key: string }) =>
  db
    .selectFrom('idempotency_keys')
    .select('generation_id')
    .where('organization_id', '=', values.organizationId)
    .where('key', '=', values.key),
);
const bindKey = prepared((db, values: { organizationId: string; key: string; generationId: string; at: number }) =>
  db
    .insertInto('idempotency_keys')
    .values({
      organization_id: values.organizationId,
      key: values.key,
      generation_id: values.generationId,
      created_at: values.at,
    })
    .onConflict((conflict) => conflict.columns(['organization_id', 'key']).doNothing()),
);

export function idempotencyRepository(db: Executor, dialect: Dialect): IdempotencyRepository {
  return {
    async find(organizationId, key) {
      const [row] = (await boundTo(db, dialect, { organizationId, key })).rows;
      return row?.generation_id ?? null;
    },
    async bind(organizationId, key, generationId, at) {
      // On Postgres a concurrent insert of the same key waits for the other transaction, then
      // inserts nothing; the caller learns it lost the race and rolls back.
      const result = await bindKey(db, dialect, { organizationId, key, generationId, at });
      return Number(result.numAffectedRows ?? 0) === 1;
    },
  };
}
