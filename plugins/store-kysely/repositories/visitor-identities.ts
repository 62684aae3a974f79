import type { VisitorIdentity, VisitorIdentityRepository } from '../../../kit/plugin.ts';
import type { Database, Executor } from '../database.ts';

export const toIdentity = (row: Database['visitor_identities']): VisitorIdentity => ({
  organizationId: row.organization_id,
  storeId: row.store_id,
  visitorId: row.visitor_id,
  sessionId: row.session_id,
  userId: row.user_id,
  traits: JSON.parse(row.traits),
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});

export function visitorIdentityRepository(db: Executor): VisitorIdentityRepository {
  return {
    async upsert(identity) {
      const values = {
        store_id: identity.storeId,
        visitor_id: identity.visitorId,
        organization_id: identity.organizationId,
        session_id: identity.sessionId,
        user_id: identity.userId,
        traits: JSON.stringify(identity.traits),
        created_at: identity.createdAt,
        updated_at: identity.updatedAt,
      };
      await db
        .insertInto('visitor_identities')
        .values(values)
        .onConflict((conflict) =>
          conflict.columns(['store_id', 'visitor_id']).doUpdateSet({
            session_id: values.session_id,
            user_id: values.user_id,
            traits: values.traits,
            updated_at: values.updated_at,
          }),
        )
        .execute();
    },

    async get(storeId, visitorId) {
      const row = await db
        .selectFrom('visitor_identities')
        .selectAll()
        .where('store_id', '=', storeId)
        .where('visitor_id', '=', visitorId)
        .executeTakeFirst();
      return row ? toIdentity(row) : null;
    },

    async visitorsSeen(storeId, { from, to }) {
      const rows = await db
        .selectFrom('visitor_identities')
        .select('visitor_id')
        .where('store_id', '=', storeId)
        // Identified before the range ends and (again) since it began.
        .where('created_at', '<', to)
        .where('updated_at', '>=', from)
        .execute();
      return rows.map((row) => row.visitor_id);
    },
  };
}
