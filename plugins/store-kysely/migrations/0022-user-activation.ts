import type { Kysely } from 'kysely';
import { sql } from '../kysely.ts';
import { withLockTimeout } from './create-index-concurrently.ts';

/**
 * When each user first signed in (`activated_at`): by setting a password through an invitation,
 * or by a sign-in link, which is how the development admin signs in without ever setting a
 * password. Such an admin counts towards the organization's last admin, and lists as active.
 *
 * Filled in from what is known: the time the password was set, else the first used sign-in link.
 *
 * Safe under live traffic: a nullable column (no rewrite, a brief exclusive lock on `users`, a
 * small table). Users the previous release activates meanwhile are activated at their next sign-in.
 */
export const liveSafe = true;

export async function up(db: Kysely<any>): Promise<void> {
  await withLockTimeout(db, 'users', () => db.schema.alterTable('users').addColumn('activated_at', 'bigint').execute());
  await sql`update users set activated_at = coalesce(password_set_at, (
    select min(used_at) from user_tokens
    where user_tokens.user_id = users.id and user_tokens.purpose = 'sign_in' and user_tokens.used_at is not null
  ))`.execute(db);
}
