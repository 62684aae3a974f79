import type { SelectQueryBuilder, UpdateQueryBuilder, UpdateResult } from 'kysely';
import type {
  ErasureProgress,
  VisitorDataRepository,
  VisitorErasure,
  VisitorErasureRepository,
} from '../../../kit/plugin.ts';
import type { Dialect } from '../dialect.ts';
import type { Database, Executor } from '../database.ts';
import { toRecord as toConversion } from './conversions.ts';
import { toRecord as toGeneration } from './generations.ts';
import { toIdentity } from './visitor-identities.ts';

/**
 * A visitor's rows are found by store: generations by `generations_by_visitor` (store, visitor,
 * time) and identities by their primary key (store, visitor), for each of the organization's
 * stores (`stores_by_organization`); a generation or identity with a visitor id always has the
 * store of the widget or page that recorded it. Conversions have indexes by (organization,
 * visitor) and (organization, session) of their own (migration 0019).
 */
const storesOf = (db: Executor, organizationId: string) =>
  db.selectFrom('stores').select('id').where('organization_id', '=', organizationId);

const visitorGenerations = (db: Executor, organizationId: string, visitorId: string) =>
  db
    .selectFrom('generations')
    .where('store_id', 'in', storesOf(db, organizationId))
    .where('visitor_id', '=', visitorId);

const visitorIdentities = (db: Executor, organizationId: string, visitorId: string) =>
  db
    .selectFrom('visitor_identities')
    .where('store_id', 'in', storesOf(db, organizationId))
    .where('visitor_id', '=', visitorId);

/**
 * The session ids the visitor's generations, identities and conversions carry: a conversion
 * reported with the visitor id names a session that an order reported without it may share.
 */
const sessionsOf = (db: Executor, organizationId: string, visitorId: string) =>
  visitorGenerations(db, organizationId, visitorId)
    .select('session_id')
    .where('session_id', 'is not', null)
    .union(visitorIdentities(db, organizationId, visitorId).select('session_id').where('session_id', 'is not', null))
    .union(
      db
        .selectFrom('conversions')
        .select('session_id')
        .where('organization_id', '=', organizationId)
        .where('visitor_id', '=', visitorId)
        .where('session_id', 'is not', null),
    );

/**
 * The ids of the visitor's conversions: those with its visitor id, and those with one of its
 * session ids, as a union of two queries, each answered by its own index (an `or` of the two would
 * read all the organization's conversions on Postgres, which cannot use an index for an `in`
 * subquery inside an `or`).
 */
const visitorConversionIds = (db: Executor, organizationId: string, visitorId: string) =>
  db
    .selectFrom('conversions')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('visitor_id', '=', visitorId)
    .union(
      db
        .selectFrom('conversions')
        .select('id')
        .where('organization_id', '=', organizationId)
        .where('session_id', 'in', sessionsOf(db, organizationId, visitorId) as never),
    );

const visitorConversions = (db: Executor, organizationId: string, visitorId: string) =>
  db.selectFrom('conversions').where('id', 'in', visitorConversionIds(db, organizationId, visitorId));

const counted = (row: { count: number | string | bigint } | undefined) => Number(row?.count ?? 0);

/**
 * Removes both ids from the conversions `ids` selects that `still` holds for (the match repeated on
 * the row itself, so a row another transaction unlinked meanwhile is neither changed nor counted
 * again); the rest of each conversion stays.
 */
async function unlink(
  db: Executor,
  ids: ReturnType<typeof conversionIds>,
  still: (
    query: UpdateQueryBuilder<Database, 'conversions', 'conversions', UpdateResult>,
  ) => UpdateQueryBuilder<Database, 'conversions', 'conversions', UpdateResult>,
  at: number,
): Promise<number> {
  const query = db
    .updateTable('conversions')
    .set({ visitor_id: null, session_id: null, updated_at: at })
    .where('id', 'in', ids);
  const result = await still(query).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

const conversionIds = (db: Executor, organizationId: string) =>
  db.selectFrom('conversions').select('id').where('organization_id', '=', organizationId);

/**
 * One page of a visitor's rows, newest `sort` first, ties broken by `tie`. The page continues after
 * its cursor, found among the visitor's own rows (another's gives an empty page, as an unknown id
 * does in the other lists). Untyped inside: the three kinds share the shape, not the columns.
 */
async function keysetPage<T>(
  rows: SelectQueryBuilder<Database, any, object>,
  keys: { sort: string; tie: string; tieOrder: 'asc' | 'desc' },
  { limit, startingAfter }: { limit: number; startingAfter?: string | undefined },
  map: (row: any) => T,
): Promise<{ data: T[]; hasMore: boolean }> {
  const { sort, tie, tieOrder } = keys;
  let query = rows.selectAll();
  if (startingAfter) {
    const cursor: Record<string, unknown> | undefined = await rows
      .select([sort, tie] as any)
      .where(tie as any, '=', startingAfter)
      .executeTakeFirst();
    if (!cursor) return { data: [], hasMore: false };
    query = query.where((eb: any) =>
      eb.or([
        eb(sort, '<', cursor[sort]),
        eb.and([eb(sort, '=', cursor[sort]), eb(tie, tieOrder === 'desc' ? '<' : '>', cursor[tie])]),
      ]),
    );
  }
  const found = await query
    .orderBy(sort as any, 'desc')
    .orderBy(tie as any, tieOrder)
    .limit(limit + 1)
    .execute();
  return { data: found.slice(0, limit).map(map), hasMore: found.length > limit };
}

export function visitorDataRepository(db: Executor, dialect: Dialect): VisitorDataRepository {
  return {
    async generations(organizationId, visitorId, page) {
      const rows = visitorGenerations(db, organizationId, visitorId);
      return keysetPage(rows, { sort: 'created_at', tie: 'id', tieOrder: 'desc' }, page, toGeneration);
    },

    async identities(organizationId, visitorId, page) {
      const rows = visitorIdentities(db, organizationId, visitorId);
      return keysetPage(rows, { sort: 'updated_at', tie: 'store_id', tieOrder: 'asc' }, page, toIdentity);
    },

    async conversions(organizationId, visitorId, page) {
      const rows = visitorConversions(db, organizationId, visitorId);
      return keysetPage(rows, { sort: 'order_created_at', tie: 'id', tieOrder: 'desc' }, page, toConversion);
    },

    async counts(organizationId, visitorId) {
      const [generations, identities, conversions] = await Promise.all([
        visitorGenerations(db, organizationId, visitorId)
          .select((eb) => eb.fn.countAll<number | string>().as('count'))
          .executeTakeFirst(),
        visitorIdentities(db, organizationId, visitorId)
          .select((eb) => eb.fn.countAll<number | string>().as('count'))
          .executeTakeFirst(),
        visitorConversions(db, organizationId, visitorId)
          .select((eb) => eb.fn.countAll<number | string>().as('count'))
          .executeTakeFirst(),
      ]);
      return { generations: counted(generations), identities: counted(identities), conversions: counted(conversions) };
    },

    async detachGenerations(organizationId, visitorId, limit) {
      const found = await visitorGenerations(db, organizationId, visitorId)
        .select(['id', 'session_id'])
        .limit(limit)
        .execute();
      if (found.length === 0) return [];
      // Only rows that still carry the visitor id are taken: on Postgres a transaction that took
      // one first holds its lock, and this update then finds it changed and leaves it.
      const taken = await db
        .updateTable('generations')
        .set({ visitor_id: null, session_id: null })
        .where(
          'id',
          'in',
          found.map((row) => row.id),
        )
        .where('visitor_id', '=', visitorId)
        .returning('id')
        .execute();
      const ids = new Set(taken.map((row) => row.id));
      return found.filter((row) => ids.has(row.id)).map((row) => ({ id: row.id, sessionId: row.session_id }));
    },

    async deleteIdentities(organizationId, visitorId, limit) {
      const found = await visitorIdentities(db, organizationId, visitorId).select('store_id').limit(limit).execute();
      if (found.length === 0) return [];
      // The session ids as they are when deleted (an identify may have changed them since the select).
      const deleted = await db
        .deleteFrom('visitor_identities')
        .where(
          'store_id',
          'in',
          found.map((row) => row.store_id),
        )
        .where('visitor_id', '=', visitorId)
        .returning(['store_id', 'session_id'])
        .execute();
      return deleted.map((row) => ({ storeId: row.store_id, sessionId: row.session_id }));
    },

    async unlinkConversionsOfVisitor(organizationId, visitorId, limit, at) {
      // Read with their session ids first (on Postgres locked, so the ids read are those removed).
      let query = conversionIds(db, organizationId)
        .select('session_id')
        .where('visitor_id', '=', visitorId)
        .limit(limit);
      if (dialect === 'postgres') query = query.forUpdate();
      const found = await query.execute();
      if (found.length === 0) return [];
      const taken = await db
        .updateTable('conversions')
        .set({ visitor_id: null, session_id: null, updated_at: at })
        .where(
          'id',
          'in',
          found.map((row) => row.id),
        )
        .where('visitor_id', '=', visitorId)
        .returning('id')
        .execute();
      const ids = new Set(taken.map((row) => row.id));
      return found.filter((row) => ids.has(row.id)).map((row) => ({ id: row.id, sessionId: row.session_id }));
    },

    async unlinkConversionsOfSessions(organizationId, sessionIds, limit, at) {
      if (sessionIds.length === 0) return 0;
      return unlink(
        db,
        conversionIds(db, organizationId).where('session_id', 'in', sessionIds).limit(limit),
        (query) => query.where('session_id', 'in', sessionIds),
        at,
      );
    },
  };
}

type ErasureRow = Database['visitor_erasures'];

const toErasure = (row: ErasureRow): VisitorErasure => ({
  id: row.id,
  organizationId: row.organization_id,
  status: row.status as VisitorErasure['status'],
  requestedBy: { type: row.requested_by_type as VisitorErasure['requestedBy']['type'], id: row.requested_by_id },
  requestedAt: Number(row.requested_at),
  completedAt: row.completed_at === null ? null : Number(row.completed_at),
  generationsDeleted: Number(row.generations_deleted),
  identitiesDeleted: Number(row.identities_deleted),
  conversionsUnlinked: Number(row.conversions_unlinked),
});

const toRow = (erasure: VisitorErasure): ErasureRow => ({
  id: erasure.id,
  organization_id: erasure.organizationId,
  status: erasure.status,
  requested_by_type: erasure.requestedBy.type,
  requested_by_id: erasure.requestedBy.id,
  requested_at: erasure.requestedAt,
  completed_at: erasure.completedAt,
  generations_deleted: erasure.generationsDeleted,
  identities_deleted: erasure.identitiesDeleted,
  conversions_unlinked: erasure.conversionsUnlinked,
});

const countColumns = {
  generationsDeleted: 'generations_deleted',
  identitiesDeleted: 'identities_deleted',
  conversionsUnlinked: 'conversions_unlinked',
} as const;

export function visitorErasureRepository(db: Executor, dialect: Dialect): VisitorErasureRepository {
  async function pendingFor(organizationId: string, visitorId: string) {
    const row = await db
      .selectFrom('visitor_erasure_subjects as subject')
      .innerJoin('visitor_erasures as erasure', 'erasure.id', 'subject.erasure_id')
      .selectAll('erasure')
      .where('subject.organization_id', '=', organizationId)
      .where('subject.visitor_id', '=', visitorId)
      .executeTakeFirst();
    return row ? toErasure(row) : null;
  }

  return {
    async request(erasure, visitorId) {
      for (let attempt = 1; ; attempt++) {
        // The unique (organization, visitor) of the pending work decides: of two racing requests one
        // inserts, the other (on Postgres after waiting for the first to commit) inserts nothing.
        const inserted = await db
          .insertInto('visitor_erasure_subjects')
          .values({ erasure_id: erasure.id, organization_id: erasure.organizationId, visitor_id: visitorId })
          .onConflict((conflict) => conflict.columns(['organization_id', 'visitor_id']).doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) {
          await db.insertInto('visitor_erasures').values(toRow(erasure)).execute();
          return { erasure, created: true };
        }
        const pending = await pendingFor(erasure.organizationId, visitorId);
        if (pending) return { erasure: pending, created: false };
        // On Postgres the erasure the insert collided with can complete (deleting its work) before
        // it is read: none is pending any more, so the insert is tried again (its statement sees that).
        if (attempt === 2)
          throw new Error('a pending erasure of the visitor conflicted twice, and then could not be read');
      }
    },

    async get(organizationId, id) {
      const row = await db
        .selectFrom('visitor_erasures')
        .selectAll()
        .where('id', '=', id)
        .where('organization_id', '=', organizationId)
        .executeTakeFirst();
      return row ? toErasure(row) : null;
    },

    async list(organizationId, { limit, startingAfter }) {
      let query = db.selectFrom('visitor_erasures').selectAll().where('organization_id', '=', organizationId);
      if (startingAfter) {
        const cursor = await db
          .selectFrom('visitor_erasures')
          .select(['requested_at', 'id'])
          .where('id', '=', startingAfter)
          .where('organization_id', '=', organizationId)
          .executeTakeFirst();
        if (!cursor) return { data: [], hasMore: false };
        query = query.where((eb) =>
          eb.or([
            eb('requested_at', '<', cursor.requested_at),
            eb.and([eb('requested_at', '=', cursor.requested_at), eb('id', '<', cursor.id)]),
          ]),
        );
      }
      const rows = await query
        .orderBy('requested_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit + 1)
        .execute();
      return { data: rows.slice(0, limit).map(toErasure), hasMore: rows.length > limit };
    },

    pendingFor,

    async subject(id, options = {}) {
      let query = db
        .selectFrom('visitor_erasure_subjects')
        .select(['organization_id', 'visitor_id'])
        .where('erasure_id', '=', id);
      // SQLite transactions already hold the write lock (BEGIN IMMEDIATE); Postgres locks the row.
      if (options.forUpdate && dialect === 'postgres') query = query.forUpdate();
      const row = await query.executeTakeFirst();
      return row ? { organizationId: row.organization_id, visitorId: row.visitor_id } : null;
    },

    async addSessions(id, sessionIds) {
      const unique = [...new Set(sessionIds)];
      if (unique.length === 0) return;
      await db
        .insertInto('visitor_erasure_sessions')
        .values(unique.map((sessionId) => ({ erasure_id: id, session_id: sessionId })))
        .onConflict((conflict) => conflict.columns(['erasure_id', 'session_id']).doNothing())
        .execute();
    },

    async sessions(id, limit) {
      const rows = await db
        .selectFrom('visitor_erasure_sessions')
        .select('session_id')
        .where('erasure_id', '=', id)
        .orderBy('session_id')
        .limit(limit)
        .execute();
      return rows.map((row) => row.session_id);
    },

    async removeSessions(id, sessionIds) {
      if (sessionIds.length === 0) return;
      await db
        .deleteFrom('visitor_erasure_sessions')
        .where('erasure_id', '=', id)
        .where('session_id', 'in', sessionIds)
        .execute();
    },

    async progress(id, counts: ErasureProgress) {
      const changes = (Object.keys(countColumns) as Array<keyof typeof countColumns>).filter((name) => counts[name]);
      if (changes.length === 0) return;
      // Added in the statement, so concurrent batches (a job run twice after a lost lease) both count.
      await db
        .updateTable('visitor_erasures')
        .set((eb) =>
          Object.fromEntries(changes.map((name) => [countColumns[name], eb(countColumns[name], '+', counts[name]!)])),
        )
        .where('id', '=', id)
        .execute();
    },

    async complete(id, at) {
      // The work's row first: on Postgres this waits for a batch that locked it (`subject` for
      // update) to commit, so the session ids deleted next include any that batch recorded.
      const subject = await db.deleteFrom('visitor_erasure_subjects').where('erasure_id', '=', id).executeTakeFirst();
      if (Number(subject.numDeletedRows) !== 1) return false;
      await db
        .updateTable('visitor_erasures')
        .set({ status: 'complete', completed_at: at })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .execute();
      await db.deleteFrom('visitor_erasure_sessions').where('erasure_id', '=', id).execute();
      return true;
    },
  };
}
