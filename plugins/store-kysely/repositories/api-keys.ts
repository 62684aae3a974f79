import type { ApiKey, ApiKeyKind, ApiKeyRepository } from '../../../kit/plugin.ts';
import type { Dialect } from '../dialect.ts';
import type { Database, Executor } from '../database.ts';
import type { KeyCache } from '../key-cache.ts';
import { prepared } from '../prepared.ts';
import { afterCursor } from './paginate.ts';

/** Every authenticated request runs this. */
const byHash = prepared((db, values: { keyHash: string }) =>
  db.selectFrom('api_keys').selectAll().where('key_hash', '=', values.keyHash),
);

const toApiKey = (row: Database['api_keys']): ApiKey => ({
  id: row.id,
  organizationId: row.organization_id,
  kind: row.kind as ApiKeyKind,
  name: row.name,
  displayPrefix: row.display_prefix,
  createdAt: Number(row.created_at),
  revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
});

export type StoredApiKey = ApiKey & { keyHash: string };

/** `cache` (see key-cache.ts) serves lookups outside transactions; every change to a stored key forgets it. */
export function apiKeyRepository(db: Executor, dialect: Dialect, cache?: KeyCache<StoredApiKey>): ApiKeyRepository {
  const forget = () => cache?.forget();
  const readByHash = async (keyHash: string): Promise<StoredApiKey | null> => {
    const [row] = (await byHash(db, dialect, { keyHash })).rows;
    return row ? { ...toApiKey(row), keyHash: row.key_hash } : null;
  };
  const findOwned = (organizationId: string, keyId: string) =>
    db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', keyId)
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();

  return {
    async create(key) {
      const row = {
        id: key.id,
        organization_id: key.organizationId,
        kind: key.kind,
        name: key.name,
        display_prefix: key.displayPrefix,
        key_hash: key.keyHash,
        created_at: key.createdAt,
        revoked_at: null,
        last_used_at: null,
      };
      await db.insertInto('api_keys').values(row).execute();
      return toApiKey(row);
    },
    findByHash: (keyHash) =>
      cache && !db.isTransaction ? cache.find(keyHash, () => readByHash(keyHash)) : readByHash(keyHash),
    async list(organizationId, { limit, startingAfter, kind }) {
      let query = db.selectFrom('api_keys').selectAll().where('organization_id', '=', organizationId);
      if (kind) query = query.where('kind', '=', kind);
      const paged = await afterCursor(db, 'api_keys', query, organizationId, startingAfter);
      if (!paged) return { data: [], hasMore: false };
      const rows = await paged
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit + 1)
        .execute();
      return { data: rows.slice(0, limit).map(toApiKey), hasMore: rows.length > limit };
    },
    async revoke(organizationId, keyId, at) {
      forget();
      await db
        .updateTable('api_keys')
        .set({ revoked_at: at })
        .where('id', '=', keyId)
        .where('organization_id', '=', organizationId)
        .where('revoked_at', 'is', null)
        .execute();
      const row = await findOwned(organizationId, keyId);
      return row ? toApiKey(row) : null;
    },
    async touch(keyId, at) {
      forget();
      await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', keyId).execute();
    },
  };
}
