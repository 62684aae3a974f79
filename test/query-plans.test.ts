import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it, mock, type TestContext } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from '../plugins/store-kysely/kysely.ts';
import pg from 'pg';
import type { Persistence } from '../core/ports/persistence/index.ts';
import type { Database } from '../plugins/store-kysely/database.ts';
import { migrationProvider } from '../plugins/store-kysely/migrations/index.ts';
import { openPostgres } from '../plugins/store-kysely/postgres.ts';
import { openSqlite } from '../plugins/store-kysely/sqlite.ts';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';
import { postgresPlansOf, sqlitePlansOf } from './support/statement-plans.ts';

/**
 * The dashboard's overview and generation filters must stay fast on lists of any length: each
 * query they send (captured from the real repository code) must be answered from an index on both
 * databases, after a few thousand rows and ANALYZE. docs/internals.md lists the plans.
 */

const dayMs = 86_400_000;
const base = Date.UTC(2025, 0, 1);
const orgA = 'org_plans_a';
const orgB = 'org_plans_b';
const storeA = 'str_plans_a';
const storeB = 'str_plans_b';
const generationId = (index: number) => `agen_plans_${String(index).padStart(5, '0')}`;
const range = { from: base + 30 * dayMs, to: base + 60 * dayMs };

async function seed(db: Kysely<Database>) {
  await db
    .insertInto('organizations')
    .values([orgA, orgB].map((id) => ({ id, name: id, credit_balance: 0, created_at: base })))
    .execute();
  await db
    .insertInto('stores')
    .values([
      { id: storeA, organization_id: orgA, name: 'A', attribution_window_days: 30, created_at: base },
      { id: storeB, organization_id: orgB, name: 'B', attribution_window_days: 30, created_at: base },
    ])
    .execute();
  // Other organizations' stores: a visitor's rows are found by the stores of its organization.
  await db
    .insertInto('stores')
    .values(
      Array.from({ length: 200 }, (_, index) => ({
        id: `str_plans_other_${index}`,
        organization_id: orgB,
        name: 'B',
        attribution_window_days: 30,
        created_at: base + index,
      })),
    )
    .execute();
  const inBatches = async <T>(count: number, row: (index: number) => T, insert: (rows: T[]) => Promise<unknown>) => {
    for (let start = 0; start < count; start += 200)
      await insert(Array.from({ length: Math.min(200, count - start) }, (_, offset) => row(start + offset)));
  };
  // About a year of each, most of it the first organization's.
  await inBatches(
    4000,
    (index) => {
      const organization = index % 4 === 3 ? orgB : orgA;
      const widget = index % 2 === 0;
      return {
        id: generationId(index),
        organization_id: organization,
        store_id: widget ? (organization === orgA ? storeA : storeB) : null,
        api_key_id: widget ? null : 'key_plans',
        widget_id: widget ? 'wid_plans' : null,
        status: index % 50 === 0 ? 'failed' : index % 97 === 0 ? 'processing' : 'complete',
        mode: index % 3 === 0 ? 'room-visualizer' : 'virtual-try-on',
        image_size: '1K',
        credits_charged: 1,
        source_image: 'private:uploads/plans/x.jpg',
        products: '[]',
        hint: null,
        metadata: null,
        image_url: null,
        image_variants: null,
        error_code: null,
        error_message: null,
        visitor_id: widget ? `vis_${index % 300}` : null,
        session_id: widget ? `ses_${index % 500}` : null,
        created_at: base + index * 2 * 3_600_000,
        completed_at: null,
      };
    },
    (rows) => db.insertInto('generations').values(rows).execute(),
  );
  await inBatches(
    3000,
    (index) => {
      const organization = index % 4 === 3 ? orgB : orgA;
      const attributed = index % 4 === 0;
      return {
        id: `conv_plans_${index}`,
        organization_id: organization,
        store_id: organization === orgA ? storeA : storeB,
        order_id: `order_${index}`,
        visitor_id: `vis_${index % 400}`,
        session_id: index % 2 === 0 ? `ses_${index % 500}` : null,
        total_cents: 1000,
        currency: index % 3 === 0 ? 'USD' : 'EUR',
        platform: 'custom',
        status: index % 20 === 0 ? 'refunded' : 'completed',
        items: '[]',
        source: 'server',
        attributed_generation_id: attributed ? generationId(index) : null,
        attributed_revenue_cents: attributed ? 500 : null,
        attributed_items: attributed ? '[]' : null,
        order_created_at: base + index * 3 * 3_600_000,
        created_at: base + index * 3 * 3_600_000,
        updated_at: base + index * 3 * 3_600_000,
      };
    },
    (rows) => db.insertInto('conversions').values(rows).execute(),
  );
  await inBatches(
    4000,
    (index) => ({
      id: `evt_plans_${index}`,
      organization_id: index % 4 === 3 ? orgB : orgA,
      type: 'generation.completed',
      body: '{}',
      created_at: base + index * 2 * 3_600_000 + 1000,
      generation_id: generationId(index),
    }),
    (rows) => db.insertInto('events').values(rows).execute(),
  );
  await inBatches(
    1000,
    (index) => ({
      store_id: index % 4 === 3 ? storeB : storeA,
      visitor_id: `vis_identified_${index}`,
      organization_id: index % 4 === 3 ? orgB : orgA,
      session_id: null,
      user_id: `user_${index}`,
      traits: '{}',
      created_at: base + index * 8 * 3_600_000,
      updated_at: base + index * 8 * 3_600_000,
    }),
    (rows) => db.insertInto('visitor_identities').values(rows).execute(),
  );
}

/** A migrated SQLite store at `file` holding the seed, its statistics gathered or not. */
async function seededSqlite(file: string, { analyze }: { analyze: boolean }) {
  const setup = openSqlite(file);
  await setup.migrate();
  await setup.close();
  const raw = new BetterSqlite3(file);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: raw }) });
  await seed(db);
  if (analyze) raw.exec('analyze');
  await db.destroy();
}

/** A migrated Postgres database holding the seed, not yet analyzed; its URL. */
async function seededPostgres() {
  postgres ??= await startPostgresTestServer();
  const url = await postgres.createDatabase();
  const setup = openPostgres(url);
  await setup.migrate();
  await setup.close();
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url }) }) });
  await seed(db);
  await db.destroy();
  return url;
}

/** Each read the overview and the generation filters make, with the index it must use. */
const reads: Array<{ name: string; index: RegExp; run: (persistence: Persistence) => Promise<unknown> }> = [
  {
    name: 'generations per day',
    index: /generations_by_organization/,
    run: (p) => p.generations.daily({ organizationId: orgA }, range),
  },
  {
    name: "a store's generations per day",
    index: /generations_by_store/,
    run: (p) => p.generations.daily({ organizationId: orgA, storeId: storeA }, range),
  },
  {
    name: 'conversions per day',
    index: /conversions_by_organization/,
    run: (p) => p.conversions.daily({ organizationId: orgA }, range),
  },
  {
    name: "a store's conversions per day",
    index: /conversions_by_store/,
    run: (p) => p.conversions.daily({ organizationId: orgA, storeId: storeA }, range),
  },
  {
    name: 'summary: visualizations',
    index: /generations_by_store/,
    run: (p) => p.visualizations.summary(storeA, range),
  },
  {
    name: 'summary: conversion totals',
    index: /conversions_by_store/,
    run: (p) => p.conversions.totals(storeA, range),
  },
  {
    name: 'summary: converting visitors',
    index: /conversions_by_store/,
    run: (p) => p.conversions.visitors(storeA, range),
  },
  {
    name: 'summary: identified visitors',
    index: /visitor_identities/,
    run: (p) => p.visitorIdentities.visitorsSeen(storeA, range),
  },
  {
    name: 'generations by status',
    index: /generations_by_status/,
    run: (p) => p.generations.list(orgA, { limit: 24, status: 'failed' }),
  },
  {
    name: 'generations by mode and time',
    index: /generations_by_organization/,
    run: (p) => p.generations.list(orgA, { limit: 24, mode: 'room-visualizer', ...range }),
  },
  {
    name: 'generations by status, mode and time, next page',
    index: /generations_by_status/,
    run: (p) =>
      p.generations.list(orgA, {
        limit: 24,
        status: 'complete',
        mode: 'virtual-try-on',
        ...range,
        startingAfter: generationId(400),
      }),
  },
  {
    name: "a generation's events",
    index: /events_by_generation/,
    run: (p) => p.events.list(orgA, { limit: 11, generationId: generationId(400) }),
  },
  // The Privacy page: what is held about a visitor, and the steps of its erasure.
  {
    name: "a visitor's generations",
    index: /generations_by_visitor/,
    run: (p) => p.visitorData.generations(orgA, 'vis_4', { limit: 100 }),
  },
  {
    name: "a visitor's identities",
    index: /visitor_identities/,
    run: (p) => p.visitorData.identities(orgA, 'vis_identified_4', { limit: 100 }),
  },
  {
    name: "a visitor's conversions",
    index: /conversions_by_visitor[\s\S]*conversions_by_session/,
    run: (p) => p.visitorData.conversions(orgA, 'vis_4', { limit: 100 }),
  },
  {
    name: "a visitor's counts",
    index: /conversions_by_visitor[\s\S]*conversions_by_session/,
    run: (p) => p.visitorData.counts(orgA, 'vis_4'),
  },
  {
    name: "a visitor's generations, next page",
    index: /generations_by_visitor/,
    run: async (p) =>
      p.visitorData.generations(orgA, 'vis_4', {
        limit: 2,
        startingAfter: (await p.visitorData.generations(orgA, 'vis_4', { limit: 1 })).data[0]!.id,
      }),
  },
  {
    name: "a visitor's conversions, next page",
    index: /conversions_by_visitor[\s\S]*conversions_by_session/,
    run: async (p) =>
      p.visitorData.conversions(orgA, 'vis_4', {
        limit: 2,
        startingAfter: (await p.visitorData.conversions(orgA, 'vis_4', { limit: 1 })).data[0]!.id,
      }),
  },
  {
    name: 'erasure: generations',
    index: /generations_by_visitor/,
    run: (p) => p.transaction((tx) => tx.visitorData.detachGenerations(orgA, 'vis_8', 100)),
  },
  {
    name: 'erasure: identities',
    index: /visitor_identities/,
    run: (p) => p.transaction((tx) => tx.visitorData.deleteIdentities(orgA, 'vis_identified_8', 100)),
  },
  {
    name: 'erasure: conversions by visitor',
    index: /conversions_by_visitor/,
    run: (p) => p.transaction((tx) => tx.visitorData.unlinkConversionsOfVisitor(orgA, 'vis_8', 100, base)),
  },
  {
    name: 'erasure: conversions by session',
    index: /conversions_by_session/,
    run: (p) => p.transaction((tx) => tx.visitorData.unlinkConversionsOfSessions(orgA, ['ses_8', 'ses_16'], 100, base)),
  },
  // The render retention: live generations by age, never reading the tombstones earlier sweeps left.
  {
    name: 'expired renders',
    index: /generations_live_by_age/,
    run: (p) => p.generations.expired(orgA, base + 2_000 * 3_600_000, 100),
  },
];

interface Explained {
  name: string;
  sql: string;
  plan: string;
}

function assertIndexed(explained: Explained[], fullScan: RegExp, indexUse: RegExp) {
  for (const read of reads) {
    const plans = explained.filter((item) => item.name === read.name);
    assert.ok(plans.length > 0, `${read.name}: no query was captured`);
    for (const { sql, plan } of plans) {
      assert.doesNotMatch(plan, fullScan, `${read.name}: a table is read without an index\n${sql}\n${plan}`);
      assert.match(plan, indexUse, `${read.name}: no index is used\n${sql}\n${plan}`);
    }
    assert.ok(
      plans.some(({ plan }) => read.index.test(plan)),
      `${read.name}: ${read.index.source} is not used\n${plans.map((item) => item.plan).join('\n---\n')}`,
    );
  }
}

const report = (t: TestContext, explained: Explained[]) => {
  for (const { name, sql, plan } of explained) t.diagnostic(`${name}\n${sql}\n${plan}`);
};

let postgres: PostgresTestServer | undefined;
after(async () => postgres?.stop());

describe('the dashboard queries use indexes', () => {
  it('on SQLite (EXPLAIN QUERY PLAN)', async (t) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-query-plans-'));
    const file = path.join(dir, 'plans.db');
    try {
      await seededSqlite(file, { analyze: true });

      // Before the store opens: it binds `prepare` to its connection.
      const prepare = mock.method(BetterSqlite3.prototype, 'prepare');
      const persistence = openSqlite(file);
      const sent: Array<{ name: string; sql: string }> = [];
      try {
        for (const read of reads) {
          prepare.mock.resetCalls();
          await read.run(persistence);
          for (const sql of new Set(prepare.mock.calls.map((call) => String(call.arguments[0])))) {
            // A transaction's own statements (an erasure step's) have no plan.
            if (!/^(begin|commit|rollback|savepoint|release)\b/i.test(sql)) sent.push({ name: read.name, sql });
          }
        }
      } finally {
        prepare.mock.restore();
        await persistence.close();
      }
      const reader = new BetterSqlite3(file, { readonly: true });
      try {
        // Explained with nulls for the parameters: SQLite plans by the query's shape (and the statistics).
        const explained = sent.map(({ name, sql }) => {
          const parameters = Array.from({ length: sql.match(/\?/g)?.length ?? 0 }, () => null);
          const plan = (reader.prepare(`explain query plan ${sql}`).all(parameters) as Array<{ detail: string }>)
            .map((row) => row.detail)
            .join('\n');
          return { name, sql, plan };
        });
        report(t, explained);
        // `SCAN <table>` without `USING … INDEX` reads the whole table.
        assertIndexed(
          explained,
          /^SCAN \w+(?! USING)( |$)/m,
          /USING (COVERING )?INDEX|USING INTEGER PRIMARY KEY|USING PRIMARY KEY/,
        );
      } finally {
        reader.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('on Postgres (EXPLAIN, after ANALYZE, sequential scans disabled)', async (t) => {
    const url = await seededPostgres();

    const persistence = openPostgres(url);
    const query = mock.method(pg.Client.prototype, 'query');
    const sent: Array<{ name: string; sql: string; parameters: unknown[] }> = [];
    try {
      for (const read of reads) {
        query.mock.resetCalls();
        await read.run(persistence);
        for (const call of query.mock.calls) {
          const [sql, parameters] = call.arguments as unknown as [unknown, unknown[]];
          if (typeof sql === 'string' && /^(select|update|delete)/i.test(sql))
            sent.push({ name: read.name, sql, parameters: parameters ?? [] });
        }
      }
    } finally {
      query.mock.restore();
      await persistence.close();
    }
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query('analyze');
      // A few thousand rows fit in a few pages, where reading them all is rightly the cheapest plan;
      // forbidding that shows which index the planner can use, as it would on a large table.
      await client.query('set enable_seqscan = off');
      const explained: Explained[] = [];
      for (const { name, sql, parameters } of sent) {
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(`explain ${sql}`, parameters);
        explained.push({ name, sql, plan: rows.map((row) => row['QUERY PLAN']).join('\n') });
      }
      report(t, explained);
      assertIndexed(explained, /Seq Scan/, /Index Scan|Index Only Scan|Bitmap Index Scan/);
    } finally {
      await client.end();
    }
  });
});

/**
 * A generation read by id (every GET, a render's engine, a deletion) must find it by primary key
 * whatever the statistics say: on a table not yet analyzed (a young database, or one that just
 * grew), Postgres once planned the read on generations_live_by_age, which matched more of its
 * conditions, and read every live generation of the organization for each GET.
 */
describe('a generation read by id uses the primary key, before any ANALYZE', () => {
  // The GET's read, a render's engine, and a deletion's lock of the rows it deletes (asked of
  // another organization's generation: nothing changes, and the seed stays as it is).
  const readsById = async (p: Persistence) => {
    await p.generations.get(orgA, generationId(400));
    await p.generations.renderEngineOf(orgA, generationId(400));
    await p.transaction((tx) => tx.generations.markDeleted(orgA, [generationId(3)], { at: base, reason: 'deleted' }));
  };
  const byId = (sql: string) => /^select .* from "generations" where .*"id" (=|in) /.test(sql);

  it('on SQLite', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-plans-by-id-'));
    const file = path.join(dir, 'plans.db');
    try {
      await seededSqlite(file, { analyze: false });
      const plans = await sqlitePlansOf(file, readsById, byId);
      assert.equal(plans.length, 3, 'every read was captured');
      for (const plan of plans) assert.match(plan, /USING INDEX sqlite_autoindex_generations_1 \(id=\?\)/, plan);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('on Postgres', async () => {
    const url = await seededPostgres();
    const plans = await postgresPlansOf(url, readsById, byId);
    assert.equal(plans.length, 3, 'every read was captured');
    for (const plan of plans) assert.match(plan, /Index Scan using generations_pkey/, plan);
  });
});

/** Migration 0014 gives the events written before it the id of the generation their body reports. */
describe('migration 0014 on events written before it', () => {
  const body = JSON.stringify({
    id: 'evt_old',
    type: 'generation.completed',
    createdAt: '2025-01-01T00:00:00.000Z',
    data: { id: 'agen_old', object: 'generation' },
  });
  async function writeBefore0014(db: Kysely<any>) {
    try {
      const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo(
        '0012-webhook-previous-secrets',
      );
      if (error) throw error;
      await db
        .insertInto('organizations')
        .values({ id: 'org_old', name: 'Old', credit_balance: 0, created_at: 0 })
        .execute();
      await db
        .insertInto('events')
        .values({ id: 'evt_old', organization_id: 'org_old', type: 'generation.completed', body, created_at: 0 })
        .execute();
    } finally {
      await db.destroy();
    }
  }
  async function eventsOfOldGeneration(persistence: Persistence) {
    try {
      await persistence.migrate();
      return (await persistence.events.list('org_old', { limit: 10, generationId: 'agen_old' })).map((event) => [
        event.id,
        event.generationId,
        event.body,
      ]);
    } finally {
      await persistence.close();
    }
  }

  it('on SQLite', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-0014-'));
    const file = path.join(dir, 'old.db');
    try {
      await writeBefore0014(new Kysely({ dialect: new SqliteDialect({ database: new BetterSqlite3(file) }) }));
      assert.deepEqual(await eventsOfOldGeneration(openSqlite(file)), [['evt_old', 'agen_old', body]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('on Postgres', async () => {
    postgres ??= await startPostgresTestServer();
    const url = await postgres.createDatabase();
    await writeBefore0014(
      new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url }) }) }),
    );
    assert.deepEqual(await eventsOfOldGeneration(openPostgres(url)), [['evt_old', 'agen_old', body]]);
  });
});
