import type { Kysely } from 'kysely';

/**
 * Conversion tracking: widgets (keyless generation from allowed origins), the attribution of a
 * conversion (revenue and items beside the generation id 0002 already has), the visitors the
 * SDK's `identify` links to logged-in users, and the indexes reports and daily caps read by.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('widgets')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) => col.notNull().references('organizations.id'))
    .addColumn('store_id', 'text', (col) => col.notNull().references('stores.id'))
    .addColumn('mode', 'text', (col) => col.notNull())
    .addColumn('image_size', 'text', (col) => col.notNull())
    .addColumn('allowed_origins', 'text', (col) => col.notNull())
    .addColumn('daily_generation_cap', 'integer', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('widgets_by_organization')
    .on('widgets')
    .columns(['organization_id', 'created_at', 'id'])
    .execute();

  await db.schema.alterTable('conversions').addColumn('attributed_revenue_cents', 'bigint').execute();
  await db.schema.alterTable('conversions').addColumn('attributed_items', 'text').execute();
  await db.schema
    .createIndex('conversions_by_store')
    .on('conversions')
    .columns(['store_id', 'order_created_at'])
    .execute();

  // One row per visitor of a store: the latest user id and traits `identify` linked to it.
  await db.schema
    .createTable('visitor_identities')
    .addColumn('store_id', 'text', (col) => col.notNull().references('stores.id'))
    .addColumn('visitor_id', 'text', (col) => col.notNull())
    .addColumn('organization_id', 'text', (col) => col.notNull().references('organizations.id'))
    .addColumn('session_id', 'text')
    .addColumn('user_id', 'text', (col) => col.notNull())
    .addColumn('traits', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('visitor_identities_pk', ['store_id', 'visitor_id'])
    .execute();
  await db.schema
    .createIndex('visitor_identities_by_update')
    .on('visitor_identities')
    .columns(['store_id', 'updated_at'])
    .execute();

  await db.schema.createIndex('generations_by_widget').on('generations').columns(['widget_id', 'created_at']).execute();
  await db.schema.createIndex('generations_by_store').on('generations').columns(['store_id', 'created_at']).execute();
}
