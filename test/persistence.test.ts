import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it, mock } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, Migrator } from '../plugins/store-kysely/kysely.ts';
import pg from 'pg';
import type { VisitorErasure } from '../core/domain/visitor-erasure.ts';
import type { Persistence } from '../core/ports/persistence/index.ts';
import { tenantService } from '../core/services/tenants.ts';
import { randomIds } from '../plugins/ids-random/index.ts';
import { migrationProvider } from '../plugins/store-kysely/migrations/index.ts';
import { openPostgres } from '../plugins/store-kysely/postgres.ts';
import { ImmediateSqliteDialect, openSqlite } from '../plugins/store-kysely/sqlite.ts';
import { persistenceContract } from 'visualizer/testing';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';
import { postgresPlansOf, sqlitePlansOf } from './support/statement-plans.ts';

persistenceContract({
  name: 'sqlite',
  create: () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-sqlite-'));
    return { dir, open: () => openSqlite(path.join(dir, 'test.db')) };
  },
  dispose: ({ dir }) => rmSync(dir, { recursive: true, force: true }),
  // What better-sqlite3 throws when another process holds the lock past the busy timeout.
  unavailableError: () => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }),
  embedded: true,
});

let postgres: PostgresTestServer | undefined;
persistenceContract({
  name: 'postgres',
  create: async () => {
    postgres ??= await startPostgresTestServer();
    const url = await postgres.createDatabase();
    return { open: () => openPostgres(url) };
  },
  unavailableError: () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
  embedded: false,
});
after(async () => postgres?.stop());

/**
 * A database of each engine as a release before a migration left it: `write` fills it through a
 * bare Kysely of the old schema, then `check` gets it opened (and migrated) as the service opens it.
 */
async function withOldSqlite<T>(
  write: (db: Kysely<any>) => Promise<void>,
  check: (persistence: Persistence) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-old-'));
  try {
    const file = path.join(dir, 'old.db');
    await write(new Kysely({ dialect: new ImmediateSqliteDialect({ database: new BetterSqlite3(file) }) }));
    return await check(openSqlite(file));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function withOldPostgres<T>(
  write: (db: Kysely<any>) => Promise<void>,
  check: (persistence: Persistence) => Promise<T>,
): Promise<T> {
  postgres ??= await startPostgresTestServer();
  const url = await postgres.createDatabase();
  await write(new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url }) }) }));
  return check(openPostgres(url));
}

describe('sqlite file', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-sqlite-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('never writes a plain key to disk', async () => {
    const persistence = openSqlite(path.join(dir, 'keys.db'));
    await persistence.migrate();
    const { apiKey, conversionKey } = await tenantService({
      persistence,
      ids: randomIds,
      clock: { now: Date.now },
    }).createOrganization({ name: 'Disk', credits: 1 });
    await persistence.close();
    const bytes = readdirSync(dir)
      .map((name) => readFileSync(path.join(dir, name)).toString('latin1'))
      .join('');
    assert.ok(bytes.includes('Disk'), 'the organization reached the file');
    assert.ok(
      !bytes.includes(apiKey.key.slice(11)) && !bytes.includes(conversionKey.key.slice(4)),
      'no key body is on disk',
    );
  });
});

/**
 * The generation lookups by store, visitor and session run on partial indexes (rows without
 * those columns are left out of them, see migration 0008); a query can use such an index only if it
 * implies the index's condition. The queries the repositories really send are recorded and
 * explained on each database.
 */
describe('generation lookups by store, visitor and session', () => {
  const lookups = async (persistence: Persistence) => {
    await persistence.visualizations.candidates('str_1', {
      visitorId: 'vis_1',
      sessionId: 'ses_1',
      from: 0,
      to: Date.now(),
    });
    await persistence.visualizations.summary('str_1', { from: 0, to: Date.now() });
  };
  const assertIndexed = (plans: string[]) => {
    assert.ok(plans.length >= 3, 'every lookup was recorded');
    for (const plan of plans) assert.match(plan, /generations_by_/, `a lookup without its index:\n${plan}`);
    // generations_by_widget served the widget's daily cap until migration 0020 counted it apart.
    for (const index of [/generations_by_store/])
      assert.ok(
        plans.some((plan) => index.test(plan)),
        `${index.source} is used`,
      );
  };

  it('use the partial indexes on SQLite', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-plans-'));
    const file = path.join(dir, 'plans.db');
    try {
      const plans = await sqlitePlansOf(file, lookups, (sql) => sql.includes('from "generations"'));
      // Attribution's lookups by visitor and by session (the planner prefers the store index on
      // empty tables): still possible on the partial indexes, or INDEXED BY would fail to plan.
      const raw = new BetterSqlite3(file, { readonly: true });
      for (const [index, column] of [
        ['generations_by_visitor', 'visitor_id'],
        ['generations_by_session', 'session_id'],
      ]) {
        raw
          .prepare(
            `select id from generations indexed by ${index} where store_id = ? and ${column} = ? and created_at >= ?`,
          )
          .all('str_1', 'x', 0);
      }
      raw.close();
      assertIndexed(plans);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('use the partial indexes on Postgres', async () => {
    postgres ??= await startPostgresTestServer();
    assertIndexed(
      await postgresPlansOf(await postgres.createDatabase(), lookups, (sql) => sql.includes('from "generations"')),
    );
  });
});

/**
 * Migration 0010 numbers the ledger entries a database already has: on SQLite in the order they
 * were written (their rowids), on Postgres, which kept no such order, as they were listed before
 * (time, then id). Either way an entry written afterwards is listed first.
 */
describe('migration 0010 on a ledger written before it', () => {
  // In the order written; their times say otherwise.
  const entries = [
    { id: 'cle_b', delta: 10, balance_after: 10, created_at: 3_000 },
    { id: 'cle_c', delta: -3, balance_after: 7, created_at: 1_000 },
    { id: 'cle_a', delta: -1, balance_after: 6, created_at: 2_000 },
  ];
  async function writeBefore0010(db: Kysely<any>) {
    try {
      const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo('0009-job-failures');
      if (error) throw error;
      await db
        .insertInto('organizations')
        .values({ id: 'org_old', name: 'Old', credit_balance: 6, created_at: 0 })
        .execute();
      for (const entry of entries)
        await db
          .insertInto('credit_ledger')
          .values({ ...entry, organization_id: 'org_old', reason: 'old', reference: null })
          .execute();
    } finally {
      await db.destroy();
    }
  }
  async function balancesAfterMigrating(persistence: Persistence) {
    try {
      assert.equal((await persistence.migrate()).applied[0], '0010-credit-ledger-sequence');
      const before = (await persistence.credits.ledger('org_old', { limit: 10 })).data.map(
        (entry) => entry.balanceAfter,
      );
      await persistence.credits.debit({
        organizationId: 'org_old',
        amount: 2,
        reason: 'new',
        ledgerEntryId: 'cle_0',
        at: 0,
      });
      const after = (await persistence.credits.ledger('org_old', { limit: 10 })).data.map(
        (entry) => entry.balanceAfter,
      );
      return { before, after };
    } finally {
      await persistence.close();
    }
  }

  it('on SQLite, numbers them in the order they were written', async () => {
    const { before, after } = await withOldSqlite(writeBefore0010, balancesAfterMigrating);
    assert.deepEqual(before, [6, 7, 10]);
    assert.deepEqual(after, [4, 6, 7, 10]);
  });

  it('on Postgres, numbers them as they were listed before, by time', async () => {
    const { before, after } = await withOldPostgres(writeBefore0010, balancesAfterMigrating);
    assert.deepEqual(before, [10, 6, 7]);
    assert.deepEqual(after, [4, 10, 6, 7]);
  });
});

/**
 * Migration 0020 fills in what each widget used on the days already begun (today and yesterday,
 * UTC) from its generations: all of them count as made, a failed one's credits as refunded.
 */
describe('migration 0020 on widget generations made before it', () => {
  const day = 86_400_000;
  const today = Math.floor(Date.now() / day);
  async function writeBefore0020(db: Kysely<any>) {
    try {
      const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo('0017-limits');
      if (error) throw error;
      await db
        .insertInto('organizations')
        .values({ id: 'org_old', name: 'Old', credit_balance: 100, created_at: 0 })
        .execute();
      await db
        .insertInto('stores')
        .values({ id: 'str_old', organization_id: 'org_old', name: 'Old', attribution_window_days: 7, created_at: 0 })
        .execute();
      for (const id of ['wdg_a', 'wdg_b']) {
        await db
          .insertInto('widgets')
          .values({
            id,
            organization_id: 'org_old',
            store_id: 'str_old',
            mode: 'virtual-try-on',
            image_size: '2K',
            allowed_origins: '[]',
            daily_generation_cap: 500,
            created_at: 0,
          })
          .execute();
      }
      const generations: Array<[string, string | null, string, number, number]> = [
        ['agen_1', 'wdg_a', 'complete', 2, today * day + 10],
        ['agen_2', 'wdg_a', 'processing', 3, today * day + 20],
        ['agen_3', 'wdg_a', 'failed', 2, today * day + 30],
        ['agen_4', 'wdg_a', 'complete', 1, (today - 1) * day + 5],
        ['agen_5', 'wdg_a', 'complete', 1, (today - 2) * day + 5],
        ['agen_6', 'wdg_b', 'complete', 2, today * day + 40],
        ['agen_7', null, 'complete', 2, today * day + 50],
      ];
      for (const [id, widget, status, credits, at] of generations) {
        await db
          .insertInto('generations')
          .values({
            id,
            organization_id: 'org_old',
            store_id: widget ? 'str_old' : null,
            api_key_id: null,
            widget_id: widget,
            status,
            mode: 'virtual-try-on',
            image_size: '2K',
            credits_charged: credits,
            source_image: 'x',
            products: '[]',
            hint: null,
            metadata: null,
            image_url: null,
            image_variants: null,
            error_code: null,
            error_message: null,
            visitor_id: null,
            session_id: null,
            created_at: at,
            completed_at: null,
          })
          .execute();
      }
    } finally {
      await db.destroy();
    }
  }
  async function usageAfterMigrating(persistence: Persistence) {
    try {
      assert.ok((await persistence.migrate()).applied.includes('0020-widget-credit-cap'));
      const usage = async (on: number) => Object.fromEntries(await persistence.widgets.usageOn(['wdg_a', 'wdg_b'], on));
      assert.deepEqual(await usage(today), {
        wdg_a: { generations: 3, credits: 5 },
        wdg_b: { generations: 1, credits: 2 },
      });
      assert.deepEqual(await usage(today - 1), { wdg_a: { generations: 1, credits: 1 } });
      assert.deepEqual(await usage(today - 2), {}, 'older days are not filled in: no cap counts them');
      assert.equal(
        (await persistence.widgets.findById('wdg_a'))?.dailyCreditCap,
        null,
        'no credit cap on widgets made before',
      );
    } finally {
      await persistence.close();
    }
  }

  it('on SQLite', () => withOldSqlite(writeBefore0020, usageAfterMigrating));

  it('on Postgres', () => withOldPostgres(writeBefore0020, usageAfterMigrating));
});

/**
 * Migration 0022 records when users first signed in, from what is known: the password's time, else
 * the first sign-in link they used (the development admin's way in). An invited user stays null.
 */
describe('migration 0022 on users from before it', () => {
  async function writeBefore0022(db: Kysely<any>) {
    try {
      const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo(
        '0021-generation-render-engine',
      );
      if (error) throw error;
      await db
        .insertInto('organizations')
        .values({ id: 'org_old', name: 'Old', credit_balance: 0, created_at: 0 })
        .execute();
      const users: Array<[string, number | null]> = [
        ['usr_password', 50],
        ['usr_link', null],
        ['usr_invited', null],
      ];
      for (const [id, passwordSetAt] of users) {
        await db
          .insertInto('users')
          .values({
            id,
            organization_id: 'org_old',
            email: `${id}@example.com`,
            role: 'admin',
            password_hash: passwordSetAt === null ? null : 'scrypt$x',
            password_set_at: passwordSetAt,
            created_at: 0,
          })
          .execute();
      }
      const tokens: Array<[string, string, string, number | null]> = [
        ['utk_1', 'usr_link', 'sign_in', 30],
        ['utk_2', 'usr_link', 'sign_in', 20],
        ['utk_3', 'usr_link', 'sign_in', null],
        ['utk_4', 'usr_invited', 'set_password', null],
        ['utk_5', 'usr_invited', 'sign_in', null],
      ];
      for (const [id, userId, purpose, usedAt] of tokens) {
        await db
          .insertInto('user_tokens')
          .values({
            id,
            user_id: userId,
            organization_id: 'org_old',
            purpose,
            token_hash: id,
            created_at: 0,
            expires_at: 100,
            used_at: usedAt,
          })
          .execute();
      }
    } finally {
      await db.destroy();
    }
  }
  async function activationAfterMigrating(persistence: Persistence) {
    try {
      assert.ok((await persistence.migrate()).applied.includes('0022-user-activation'));
      const activated = async (id: string) => (await persistence.users.get('org_old', id))?.activatedAt;
      assert.equal(await activated('usr_password'), 50);
      assert.equal(await activated('usr_link'), 20, 'the first sign-in link used');
      assert.equal(await activated('usr_invited'), null);
      assert.equal(await persistence.users.countActiveAdmins('org_old'), 2);
    } finally {
      await persistence.close();
    }
  }

  it('on SQLite', () => withOldSqlite(writeBefore0022, activationAfterMigrating));

  it('on Postgres', () => withOldPostgres(writeBefore0022, activationAfterMigrating));
});

/**
 * A request for a visitor whose pending erasure completes at the same moment, on Postgres (SQLite
 * runs one transaction at a time): the insert finds the pending erasure's work, which the completion
 * then deletes before the request reads it. No erasure is pending any more, so the request records
 * its own rather than failing (which the API answered as a 500).
 */
describe('a visitor erasure requested while the pending one completes', () => {
  it('on Postgres, records the new erasure', async () => {
    postgres ??= await startPostgresTestServer();
    const url = await postgres.createDatabase();
    const [store, other] = [openPostgres(url), openPostgres(url)];
    try {
      await store.migrate();
      const { organization } = await tenantService({
        persistence: store,
        ids: randomIds,
        clock: { now: () => Date.now() },
      }).createOrganization({ name: 'Erasure race', credits: 0 });
      const erasure = (id: string): VisitorErasure => ({
        id,
        organizationId: organization.id,
        status: 'pending',
        requestedBy: { type: 'api_key', id: 'key_race' },
        requestedAt: Date.now(),
        completedAt: null,
        generationsDeleted: 0,
        identitiesDeleted: 0,
        conversionsUnlinked: 0,
      });
      const first = erasure('vera_race_first');
      assert.equal((await store.transaction((tx) => tx.visitorErasures.request(first, 'v-race'))).created, true);

      // The read of the pending erasure that follows the insert waits for the completion to commit.
      const query = pg.Client.prototype.query;
      let completedBetween = false;
      mock.method(pg.Client.prototype, 'query', async function (this: pg.Client, ...args: unknown[]) {
        if (
          !completedBetween &&
          typeof args[0] === 'string' &&
          args[0].includes('from "visitor_erasure_subjects" as "subject"')
        ) {
          completedBetween = true;
          assert.equal(await other.transaction((tx) => tx.visitorErasures.complete(first.id, Date.now())), true);
        }
        return (query as (...input: unknown[]) => unknown).apply(this, args);
      });
      const second = erasure('vera_race_second');
      const outcome = await store.transaction((tx) => tx.visitorErasures.request(second, 'v-race'));
      mock.restoreAll();
      assert.ok(completedBetween, 'the completion came between the insert and the read');
      assert.deepEqual(outcome, { erasure: second, created: true });
      assert.deepEqual(await store.visitorErasures.pendingFor(organization.id, 'v-race'), second);
    } finally {
      mock.restoreAll();
      await store.close();
      await other.close();
    }
  });
});
