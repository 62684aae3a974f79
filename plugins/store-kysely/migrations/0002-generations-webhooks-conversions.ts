import type { Kysely } from 'kysely';

/**
 * The tables the later capabilities write: generations with their idempotency keys, webhook
 * endpoints with the event outbox and its delivery attempts, and conversions.
 * JSON documents (products, metadata, variants, items) are stored as text so both dialects agree.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('generations')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) => col.notNull().references('organizations.id'))
    .addColumn('store_id', 'text', (col) => col.references('stores.id'))
    .addColumn('api_key_id', 'text')
    .addColumn('widget_id', 'text')
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('mode', 'text', (col) => col.notNull())
    .addColumn('image_size', 'text', (col) => col.notNull())
    .addColumn('credits_charged', 'integer', (col) => col.notNull())
    .addColumn('source_image', 'text', (col) => col.notNull())
    .addColumn('products', 'text', (col) => col.notNull())
    .addColumn('hint', 'text')
    .addColumn('metadata', 'text')
    .addColumn('image_url', 'text')
    .addColumn('image_variants', 'text')
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('visitor_id', 'text')
    .addColumn('session_id', 'text')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('completed_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('generations_by_organization')
    .on('generations')
    .columns(['organization_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('generations_by_visitor')
    .on('generations')
    .columns(['store_id', 'visitor_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('generations_by_session')
    .on('generations')
    .columns(['store_id', 'session_id', 'created_at'])
    .execute();

  // Keys are scoped per organization: the same key in two organizations names two actions.
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('organization_id', 'text', (col) => col.notNull().references('organizations.id'))
    .addColumn('key', 'text', (col) => col.notNull())
    .addColumn('generation_id', 'text', (col) => col.notNull().references('generations.id'))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['organization_id', 'key'])
    .execute();

  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) => col.notNull().references('organizations.id'))
    .addColumn('url', 'text', (col) => col.notNull())
    .addColumn('description', 'text')
    .addColumn('enabled_events', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('secret', 'text', (col) => col.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', 'bigint')
    .addColumn('failing_since', 'bigint')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_by_organization')
    .on('webhook_endpoints')
    .columns(['organization_id', 'created_at'])
    .execute();

  // The outbox: an event row is written in the same transaction as the change that causes it.
  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) => col.notNull().references('organizations.id'))
    .addColumn('type', 'text', (col) => col.notNull())
    .addColumn('body', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('events_by_organization')
    .on('events')
    .columns(['organization_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('event_deliveries')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('event_id', 'text', (col) => col.notNull().references('events.id'))
    .addColumn('endpoint_id', 'text', (col) => col.notNull().references('webhook_endpoints.id'))
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('attempt_count', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint')
    .addColumn('locked_until', 'bigint')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('event_deliveries_due')
    .on('event_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute();
  await db.schema.createIndex('event_deliveries_by_event').on('event_deliveries').columns(['event_id']).execute();

  await db.schema
    .createTable('delivery_attempts')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('delivery_id', 'text', (col) => col.notNull().references('event_deliveries.id'))
    .addColumn('attempted_at', 'bigint', (col) => col.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer', (col) => col.notNull())
    .addColumn('response_body', 'text')
    .execute();
  await db.schema
    .createIndex('delivery_attempts_by_delivery')
    .on('delivery_attempts')
    .columns(['delivery_id', 'attempted_at'])
    .execute();

  // One row per (store, order): server and browser reports of the same order merge into it.
  await db.schema
    .createTable('conversions')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) => col.notNull().references('organizations.id'))
    .addColumn('store_id', 'text', (col) => col.notNull().references('stores.id'))
    .addColumn('order_id', 'text', (col) => col.notNull())
    .addColumn('visitor_id', 'text')
    .addColumn('session_id', 'text')
    .addColumn('total_cents', 'bigint', (col) => col.notNull())
    .addColumn('currency', 'text', (col) => col.notNull())
    .addColumn('platform', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('items', 'text', (col) => col.notNull())
    .addColumn('source', 'text', (col) => col.notNull())
    .addColumn('attributed_generation_id', 'text')
    .addColumn('order_created_at', 'bigint', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .addUniqueConstraint('conversions_store_order', ['store_id', 'order_id'])
    .execute();
  await db.schema
    .createIndex('conversions_by_organization')
    .on('conversions')
    .columns(['organization_id', 'order_created_at'])
    .execute();
}
