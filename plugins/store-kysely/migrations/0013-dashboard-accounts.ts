import type { Kysely } from 'kysely';

/**
 * Dashboard accounts: users (one organization each, email unique across the service), their
 * one-time links (invitations, sign-in links) and their sessions. Tokens are stored only as
 * SHA-256 hashes, looked up through unique indexes.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) => col.notNull().references('organizations.id'))
    .addColumn('email', 'text', (col) => col.notNull())
    .addColumn('role', 'text', (col) => col.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('password_set_at', 'bigint')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  // Sign-in asks for an email alone, so it names one user whatever the organization.
  await db.schema.createIndex('users_by_email').on('users').column('email').unique().execute();
  // The team page lists an organization's users oldest first, paged by (created_at, id).
  await db.schema
    .createIndex('users_by_organization')
    .on('users')
    .columns(['organization_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('user_tokens')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id'))
    .addColumn('organization_id', 'text', (col) => col.notNull().references('organizations.id'))
    .addColumn('purpose', 'text', (col) => col.notNull())
    .addColumn('token_hash', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('user_tokens_by_hash').on('user_tokens').column('token_hash').unique().execute();
  // Pending invitations of a page of users, and a removed user's tokens.
  await db.schema
    .createIndex('user_tokens_by_user')
    .on('user_tokens')
    .columns(['user_id', 'purpose', 'expires_at'])
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id'))
    .addColumn('organization_id', 'text', (col) => col.notNull().references('organizations.id'))
    .addColumn('token_hash', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('last_seen_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('user_agent', 'text')
    .addColumn('ip_address', 'text')
    .execute();
  // Every dashboard request looks its session up by the cookie's hash.
  await db.schema.createIndex('sessions_by_hash').on('sessions').column('token_hash').unique().execute();
  // A user's sessions, newest first; revoking them all after a password change.
  await db.schema.createIndex('sessions_by_user').on('sessions').columns(['user_id', 'created_at']).execute();
}
