import type { WebhookEndpointRecord, WebhookEndpointRepository } from '../../../kit/plugin.ts';
import type { Database, Executor } from '../database.ts';
import { afterCursor } from './paginate.ts';

type Row = Database['webhook_endpoints'];

export const toEndpoint = (row: Row): WebhookEndpointRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  url: row.url,
  description: row.description,
  enabledEvents: JSON.parse(row.enabled_events),
  status: row.status as WebhookEndpointRecord['status'],
  disabledReason: row.disabled_reason,
  secret: row.secret,
  previousSecrets: JSON.parse(row.previous_secrets),
  failingSince: row.failing_since === null ? null : Number(row.failing_since),
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});

const toRow = (record: WebhookEndpointRecord): Omit<Row, 'deleted_at'> => ({
  id: record.id,
  organization_id: record.organizationId,
  url: record.url,
  description: record.description,
  enabled_events: JSON.stringify(record.enabledEvents),
  status: record.status,
  disabled_reason: record.disabledReason,
  secret: record.secret,
  previous_secrets: JSON.stringify(record.previousSecrets),
  failing_since: record.failingSince,
  created_at: record.createdAt,
  updated_at: record.updatedAt,
});

export function webhookEndpointRepository(db: Executor, dialect: 'sqlite' | 'postgres'): WebhookEndpointRepository {
  const live = (organizationId: string) =>
    db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('deleted_at', 'is', null);

  return {
    async create(endpoint) {
      await db
        .insertInto('webhook_endpoints')
        .values({ ...toRow(endpoint), deleted_at: null })
        .execute();
    },
    async get(organizationId, id, options = {}) {
      let query = live(organizationId).where('id', '=', id);
      // SQLite transactions already hold the write lock (BEGIN IMMEDIATE); Postgres locks the row.
      if (options.forUpdate && dialect === 'postgres') query = query.forUpdate();
      const row = await query.executeTakeFirst();
      return row ? toEndpoint(row) : null;
    },
    async list(organizationId, { limit, startingAfter }) {
      const paged = await afterCursor(db, 'webhook_endpoints', live(organizationId), organizationId, startingAfter);
      if (!paged) return { data: [], hasMore: false };
      const rows = await paged
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit + 1)
        .execute();
      return { data: rows.slice(0, limit).map(toEndpoint), hasMore: rows.length > limit };
    },
    async count(organizationId) {
      const row = await db
        .selectFrom('webhook_endpoints')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('organization_id', '=', organizationId)
        .where('deleted_at', 'is', null)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },
    async subscribedTo(organizationId, eventType) {
      // Subscriptions are few per organization; filtering the JSON list here keeps SQL portable.
      const rows = await live(organizationId).where('status', '=', 'enabled').orderBy('created_at').execute();
      return rows
        .map(toEndpoint)
        .filter((endpoint) => endpoint.enabledEvents.includes('*') || endpoint.enabledEvents.includes(eventType));
    },
    async update(endpoint) {
      const { id, organization_id, created_at, ...changes } = toRow(endpoint);
      await db
        .updateTable('webhook_endpoints')
        .set(changes)
        .where('id', '=', id)
        .where('organization_id', '=', organization_id)
        .execute();
    },
    async delete(organizationId, id, at) {
      const result = await db
        .updateTable('webhook_endpoints')
        .set({ deleted_at: at, status: 'disabled', disabled_reason: 'deleted', updated_at: at })
        .where('id', '=', id)
        .where('organization_id', '=', organizationId)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async markFailing(id, at) {
      await db
        .updateTable('webhook_endpoints')
        .set({ failing_since: at })
        .where('id', '=', id)
        .where('failing_since', 'is', null)
        .execute();
    },
    async markHealthy(id) {
      await db
        .updateTable('webhook_endpoints')
        .set({ failing_since: null })
        .where('id', '=', id)
        .where('failing_since', 'is not', null)
        .execute();
    },
    async disable(id, reason, at) {
      await db
        .updateTable('webhook_endpoints')
        .set({ status: 'disabled', disabled_reason: reason, updated_at: at })
        .where('id', '=', id)
        .where('status', '=', 'enabled')
        .execute();
    },
    async disableFailingSince(before, reason, at) {
      const rows = await db
        .updateTable('webhook_endpoints')
        .set({ status: 'disabled', disabled_reason: reason, updated_at: at })
        .where('status', '=', 'enabled')
        .where('deleted_at', 'is', null)
        .where('failing_since', '<', before)
        .returning('id')
        .execute();
      return rows.map((row) => row.id);
    },
  };
}
