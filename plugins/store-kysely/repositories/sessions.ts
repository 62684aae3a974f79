import type { Session, SessionRepository } from '../../../kit/plugin.ts';
import type { Dialect } from '../dialect.ts';
import type { Database, Executor } from '../database.ts';
import { prepared } from '../prepared.ts';

/** Every request the dashboard makes runs this. */
const byHash = prepared((db, values: { tokenHash: string }) =>
  db.selectFrom('sessions').selectAll().where('token_hash', '=', values.tokenHash),
);

const toSession = (row: Database['sessions']): Session => ({
  id: row.id,
  userId: row.user_id,
  organizationId: row.organization_id,
  tokenHash: row.token_hash,
  createdAt: Number(row.created_at),
  lastSeenAt: Number(row.last_seen_at),
  expiresAt: Number(row.expires_at),
  revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  userAgent: row.user_agent,
  ipAddress: row.ip_address,
});

export function sessionRepository(db: Executor, dialect: Dialect): SessionRepository {
  return {
    async create(session) {
      await db
        .insertInto('sessions')
        .values({
          id: session.id,
          user_id: session.userId,
          organization_id: session.organizationId,
          token_hash: session.tokenHash,
          created_at: session.createdAt,
          last_seen_at: session.lastSeenAt,
          expires_at: session.expiresAt,
          revoked_at: session.revokedAt,
          user_agent: session.userAgent,
          ip_address: session.ipAddress,
        })
        .execute();
    },
    async findByHash(tokenHash) {
      const [row] = (await byHash(db, dialect, { tokenHash })).rows;
      return row ? toSession(row) : null;
    },
    async get(organizationId, id) {
      const row = await db
        .selectFrom('sessions')
        .selectAll()
        .where('id', '=', id)
        .where('organization_id', '=', organizationId)
        .executeTakeFirst();
      return row ? toSession(row) : null;
    },
    async listActive(organizationId, userId, now, limit) {
      const rows = await db
        .selectFrom('sessions')
        .selectAll()
        .where('user_id', '=', userId)
        .where('organization_id', '=', organizationId)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map(toSession);
    },
    async touch(id, at) {
      // Never moves lastSeenAt back, should two requests of one session touch it out of order.
      await db
        .updateTable('sessions')
        .set({ last_seen_at: at })
        .where('id', '=', id)
        .where('last_seen_at', '<', at)
        .execute();
    },
    async revoke(organizationId, id, at) {
      const result = await db
        .updateTable('sessions')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('organization_id', '=', organizationId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async revokeAllForUser(userId, at) {
      const result = await db
        .updateTable('sessions')
        .set({ revoked_at: at })
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
  };
}
