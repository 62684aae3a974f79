import type { Kysely } from 'kysely';
import { sql } from '../kysely.ts';

/**
 * Every secret a rotation replaced keeps signing until its own expiry, so an endpoint has a list of
 * previous secrets (`[{ secret, expiresAt }]`, newest first, as JSON text like the other documents)
 * instead of the one pair 0002 made, which a second rotation overwrote.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('webhook_endpoints')
    .addColumn('previous_secrets', 'text', (col) => col.notNull().defaultTo('[]'))
    .execute();
  // Plain concatenation builds the same JSON on both dialects: secrets are `whsec_` + base64, which
  // holds no character JSON escapes. An expired one is copied too; signing skips it.
  await sql`
    update webhook_endpoints
    set previous_secrets = '[{"secret":"' || previous_secret || '","expiresAt":' || previous_secret_expires_at || '}]'
    where previous_secret is not null and previous_secret_expires_at is not null`.execute(db);
  // 0002's two columns stay, unused from now on: a process of the previous release still running
  // during a deploy reads them, and would fail on every endpoint if they were gone.
}
