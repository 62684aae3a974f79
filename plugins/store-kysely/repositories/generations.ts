import type { DeletionReason, GenerationRecord, GenerationRepository, GenerationStatus } from '../../../kit/plugin.ts';
import type { Dialect } from '../dialect.ts';
import type { Database, Executor } from '../database.ts';
import { prepared, preparedInsert } from '../prepared.ts';
import { dayOf } from './day.ts';
import { afterCursor } from './paginate.ts';

const insertGeneration = preparedInsert('generations');
/**
 * By primary key only; a tombstone is told apart from the row. With `deleted_at is null` in the
 * query, Postgres may plan it on generations_live_by_age (organization, time) where deleted_at is
 * null, which matches more of its conditions, and read every live generation of the organization.
 */
const byId = prepared((db, values: { id: string; organizationId: string }) =>
  db
    .selectFrom('generations')
    .selectAll()
    .where('id', '=', values.id)
    .where('organization_id', '=', values.organizationId),
);

type Row = Database['generations'];

const parse = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

export const toRecord = (row: Row): GenerationRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  storeId: row.store_id,
  apiKeyId: row.api_key_id,
  widgetId: row.widget_id,
  status: row.status as GenerationRecord['status'],
  mode: row.mode as GenerationRecord['mode'],
  imageSize: row.image_size as GenerationRecord['imageSize'],
  creditsCharged: Number(row.credits_charged),
  sourceImage: row.source_image,
  products: JSON.parse(row.products),
  hint: row.hint,
  metadata: parse(row.metadata),
  imageUrl: row.image_url,
  imageVariants: parse(row.image_variants),
  errorCode: row.error_code,
  errorMessage: row.error_message,
  visitorId: row.visitor_id,
  sessionId: row.session_id,
  createdAt: Number(row.created_at),
  completedAt: row.completed_at === null ? null : Number(row.completed_at),
});

/**
 * What deleting a generation leaves of its row: ids, organization, store, widget, mode, size,
 * credits and times stay (replays, the ledger's references, daily counts and widget caps refer to
 * them); everything that could be personal goes.
 */
const scrubbed = {
  source_image: '',
  products: '[]',
  hint: null,
  metadata: null,
  image_url: null,
  image_variants: null,
  error_message: null,
  visitor_id: null,
  session_id: null,
} satisfies Partial<Row>;

/** The error code a generation deleted while `processing` is failed with (never shown: GET answers 404). */
const deletedWhileProcessing = 'generation_deleted';

const toRow = (record: GenerationRecord): Row => ({
  id: record.id,
  organization_id: record.organizationId,
  store_id: record.storeId,
  api_key_id: record.apiKeyId,
  widget_id: record.widgetId,
  status: record.status,
  mode: record.mode,
  image_size: record.imageSize,
  credits_charged: record.creditsCharged,
  source_image: record.sourceImage,
  products: JSON.stringify(record.products),
  hint: record.hint,
  metadata: record.metadata === null ? null : JSON.stringify(record.metadata),
  image_url: record.imageUrl,
  image_variants: record.imageVariants === null ? null : JSON.stringify(record.imageVariants),
  error_code: record.errorCode,
  error_message: record.errorMessage,
  visitor_id: record.visitorId,
  session_id: record.sessionId,
  created_at: record.createdAt,
  completed_at: record.completedAt,
});

export function generationRepository(db: Executor, dialect: Dialect): GenerationRepository {
  return {
    async create(record) {
      await insertGeneration(db, dialect, toRow(record));
    },
    async get(organizationId, id) {
      const [row] = (await byId(db, dialect, { id, organizationId })).rows;
      return row && row.deleted_at === null ? toRecord(row) : null;
    },
    async statusOf(id) {
      const row = await db.selectFrom('generations').select('status').where('id', '=', id).executeTakeFirst();
      return row ? (row.status as GenerationRecord['status']) : null;
    },
    async list(organizationId, { limit, startingAfter, status, mode, from, to }) {
      // generations_by_status (organization, status, time, id) or generations_by_organization
      // (organization, time, id) serve the filter, the range and the order; mode is checked per row.
      let query = db
        .selectFrom('generations')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('deleted_at', 'is', null);
      if (status) query = query.where('status', '=', status);
      if (mode) query = query.where('mode', '=', mode);
      if (from !== undefined) query = query.where('created_at', '>=', from);
      if (to !== undefined) query = query.where('created_at', '<', to);
      const paged = await afterCursor(db, 'generations', query, organizationId, startingAfter);
      if (!paged) return { data: [], hasMore: false };
      query = paged;
      const rows = await query
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit + 1)
        .execute();
      return { data: rows.slice(0, limit).map(toRecord), hasMore: rows.length > limit };
    },
    async daily({ organizationId, storeId }, { from, to }) {
      let query = db
        .selectFrom('generations')
        .select((eb) => [
          dayOf('created_at').as('day'),
          'status',
          eb.fn.countAll<number | string>().as('count'),
          eb.fn.sum<number | string>('credits_charged').as('credits'),
        ]);
      // A store's generations by generations_by_store (partial: `store_id = ?` implies its condition).
      query =
        storeId === undefined
          ? query.where('organization_id', '=', organizationId)
          : query.where('store_id', '=', storeId);
      const rows = await query
        .where('created_at', '>=', from)
        .where('created_at', '<', to)
        .groupBy([dayOf('created_at'), 'status'])
        .orderBy(dayOf('created_at'))
        .orderBy('status')
        .execute();
      return rows.map((row) => ({
        day: Number(row.day),
        status: row.status as GenerationRecord['status'],
        count: Number(row.count),
        credits: Number(row.credits),
      }));
    },
    async complete(id, result) {
      const outcome = await db
        .updateTable('generations')
        .set({
          status: 'complete',
          image_url: result.imageUrl,
          image_variants: JSON.stringify(result.imageVariants),
          completed_at: result.completedAt,
          render_engine: result.engine ?? null,
        })
        .where('id', '=', id)
        .where('status', '=', 'processing')
        .executeTakeFirst();
      return Number(outcome.numUpdatedRows) === 1;
    },
    async renderEngineOf(organizationId, id) {
      // By primary key only, as byId and for the same reason.
      const row = await db
        .selectFrom('generations')
        .select(['render_engine', 'deleted_at'])
        .where('id', '=', id)
        .where('organization_id', '=', organizationId)
        .executeTakeFirst();
      return row && row.deleted_at === null ? (row.render_engine ?? null) : null;
    },
    async fail(id, error) {
      const outcome = await db
        .updateTable('generations')
        .set({
          status: 'failed',
          error_code: error.code,
          error_message: error.message,
          completed_at: error.completedAt,
        })
        .where('id', '=', id)
        .where('status', '=', 'processing')
        .executeTakeFirst();
      return Number(outcome.numUpdatedRows) === 1;
    },
    async markDeleted(organizationId, ids, { at, reason }) {
      if (ids.length === 0) return [];
      // By primary key, tombstones told apart here (as byId, and for the same reason).
      let named = db
        .selectFrom('generations')
        .select(['id', 'status', 'credits_charged', 'widget_id', 'created_at', 'deleted_at'])
        .where('organization_id', '=', organizationId)
        .where('id', 'in', ids)
        // Locked in one order, so two deletions of overlapping sets (the retention sweep and an erasure) never deadlock.
        .orderBy('id');
      // A render's `complete` waits for these locks, then finds the row no longer `processing`.
      if (dialect === 'postgres') named = named.forUpdate();
      const rows = (await named.execute()).filter((row) => row.deleted_at === null);
      if (rows.length === 0) return [];
      const found = rows.map((row) => row.id);
      // The ones still processing end as failed (their render is discarded); the others keep their status.
      await db
        .updateTable('generations')
        .set({ status: 'failed', error_code: deletedWhileProcessing, completed_at: at })
        .where('organization_id', '=', organizationId)
        .where('id', 'in', found)
        .where('status', '=', 'processing')
        .execute();
      await db
        .updateTable('generations')
        .set({ ...scrubbed, deleted_at: at, deletion_reason: reason })
        .where('organization_id', '=', organizationId)
        .where('id', 'in', found)
        .execute();
      return rows.map((row) => ({
        id: row.id,
        status: row.status as GenerationStatus,
        creditsCharged: Number(row.credits_charged),
        widgetId: row.widget_id,
        createdAt: Number(row.created_at),
      }));
    },
    async tombstone(organizationId, id) {
      const row = await db
        .selectFrom('generations')
        .select(['id', 'deleted_at', 'deletion_reason'])
        .where('id', '=', id)
        .where('organization_id', '=', organizationId)
        .where('deleted_at', 'is not', null)
        .executeTakeFirst();
      return row
        ? {
            id: row.id,
            deletedAt: Number(row.deleted_at),
            reason: (row.deletion_reason ?? 'deleted') as DeletionReason,
          }
        : null;
    },
    async expired(organizationId, before, limit) {
      // generations_live_by_age (organization, time) where deleted_at is null: tombstones are not in it.
      const rows = await db
        .selectFrom('generations')
        .select('id')
        .where('organization_id', '=', organizationId)
        .where('deleted_at', 'is', null)
        .where('created_at', '<', before)
        .where('status', '!=', 'processing')
        .orderBy('created_at')
        .limit(limit)
        .execute();
      return rows.map((row) => row.id);
    },
  };
}
