import type { StoredUser, User, UserRepository, UserRole, UserToken, UserTokenPurpose } from '../../../kit/plugin.ts';
import type { Database, Executor } from '../database.ts';

const toStoredUser = (row: Database['users']): StoredUser => ({
  id: row.id,
  organizationId: row.organization_id,
  email: row.email,
  role: row.role as UserRole,
  passwordSetAt: row.password_set_at === null ? null : Number(row.password_set_at),
  activatedAt: row.activated_at === null ? null : Number(row.activated_at),
  createdAt: Number(row.created_at),
  passwordHash: row.password_hash,
});

/** A user without the password's hash: what every read but sign-in returns. */
const toUser = (row: Database['users']): User => {
  const { passwordHash: _, ...user } = toStoredUser(row);
  return user;
};

const toToken = (row: Database['user_tokens']): UserToken => ({
  id: row.id,
  userId: row.user_id,
  organizationId: row.organization_id,
  purpose: row.purpose as UserTokenPurpose,
  tokenHash: row.token_hash,
  createdAt: Number(row.created_at),
  expiresAt: Number(row.expires_at),
  usedAt: row.used_at === null ? null : Number(row.used_at),
});

export function userRepository(db: Executor): UserRepository {
  const get = async (organizationId: string, id: string) => {
    const row = await db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    return row ? toUser(row) : null;
  };
  return {
    async create(user) {
      const row: Database['users'] = {
        id: user.id,
        organization_id: user.organizationId,
        email: user.email,
        role: user.role,
        password_hash: user.passwordHash,
        password_set_at: user.passwordSetAt,
        activated_at: user.activatedAt,
        created_at: user.createdAt,
      };
      await db.insertInto('users').values(row).execute();
      return toUser(row);
    },
    get,
    async findByEmail(email) {
      const row = await db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
      return row ? toStoredUser(row) : null;
    },
    async list(organizationId, { limit, startingAfter }) {
      let query = db.selectFrom('users').selectAll().where('organization_id', '=', organizationId);
      if (startingAfter) {
        const cursor = await db
          .selectFrom('users')
          .select(['created_at', 'id'])
          .where('id', '=', startingAfter)
          .where('organization_id', '=', organizationId)
          .executeTakeFirst();
        // A cursor that is not one of the organization's users (removed since, or another's) ends the list.
        if (!cursor) return { data: [], hasMore: false };
        query = query.where((eb) =>
          eb.or([
            eb('created_at', '>', cursor.created_at),
            eb.and([eb('created_at', '=', cursor.created_at), eb('id', '>', cursor.id)]),
          ]),
        );
      }
      const rows = await query
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit + 1)
        .execute();
      return { data: rows.slice(0, limit).map(toUser), hasMore: rows.length > limit };
    },
    async countActiveAdmins(organizationId) {
      const row = await db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number | string | bigint>().as('count'))
        .where('organization_id', '=', organizationId)
        .where('role', '=', 'admin')
        .where('activated_at', 'is not', null)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },
    async lockTeam(organizationId) {
      // A no-op update takes the organization row's lock on Postgres until the transaction ends;
      // SQLite's transactions already run one at a time.
      await db
        .updateTable('organizations')
        .set((eb) => ({ name: eb.ref('name') }))
        .where('id', '=', organizationId)
        .execute();
    },
    async setRole(organizationId, id, role) {
      await db
        .updateTable('users')
        .set({ role })
        .where('id', '=', id)
        .where('organization_id', '=', organizationId)
        .execute();
      return get(organizationId, id);
    },
    async setPassword(id, passwordHash, at) {
      await db
        .updateTable('users')
        .set({ password_hash: passwordHash, password_set_at: at })
        .where('id', '=', id)
        .execute();
    },
    async markActivated(id, at) {
      await db
        .updateTable('users')
        .set({ activated_at: at })
        .where('id', '=', id)
        .where('activated_at', 'is', null)
        .execute();
    },
    async remove(organizationId, id) {
      const owned = await db
        .selectFrom('users')
        .select('id')
        .where('id', '=', id)
        .where('organization_id', '=', organizationId)
        .executeTakeFirst();
      if (!owned) return false;
      // Children first: the foreign keys refuse a user whose tokens or sessions remain.
      await db.deleteFrom('user_tokens').where('user_id', '=', id).execute();
      await db.deleteFrom('sessions').where('user_id', '=', id).execute();
      const deleted = await db
        .deleteFrom('users')
        .where('id', '=', id)
        .where('organization_id', '=', organizationId)
        .executeTakeFirst();
      return Number(deleted.numDeletedRows) > 0;
    },

    async createToken(token) {
      await db
        .insertInto('user_tokens')
        .values({
          id: token.id,
          user_id: token.userId,
          organization_id: token.organizationId,
          purpose: token.purpose,
          token_hash: token.tokenHash,
          created_at: token.createdAt,
          expires_at: token.expiresAt,
          used_at: token.usedAt,
        })
        .execute();
    },
    async findToken(tokenHash) {
      const row = await db.selectFrom('user_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
      return row ? toToken(row) : null;
    },
    async useToken(id, at) {
      // One conditional update: of any number of racing callers, exactly one sees a row change.
      const result = await db
        .updateTable('user_tokens')
        .set({ used_at: at })
        .where('id', '=', id)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async pendingInvitations(organizationId, userIds, now) {
      if (userIds.length === 0) return [];
      const rows = await db
        .selectFrom('user_tokens')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('user_id', 'in', userIds)
        .where('purpose', '=', 'set_password')
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      const newest = new Map<string, UserToken>();
      for (const row of rows) if (!newest.has(row.user_id)) newest.set(row.user_id, toToken(row));
      return [...newest.values()];
    },
  };
}
