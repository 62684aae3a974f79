import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashKey } from '../../core/domain/api-keys.ts';
import { tenantService } from '../../core/services/tenants.ts';
import type { Persistence } from '../plugin.ts';
import type { PersistenceDatabase } from './database.ts';
import { testIds } from './ids.ts';
import { generationRecord, webhookEndpointRecord } from './records.ts';
import { persistenceAnalyticsContract } from './persistence-analytics.ts';
import { accountsContract } from './persistence-accounts.ts';
import { persistenceRetentionContract } from './persistence-retention.ts';
import { persistenceVisitorsContract } from './persistence-visitors.ts';

export interface PersistenceContractOptions<Database extends PersistenceDatabase = PersistenceDatabase> {
  name: string;
  /** A fresh, empty database (nothing migrated); the suite opens several handles on it. */
  create(): Database | Promise<Database>;
  /** Removes the database; called once after the suite, when every handle is closed. */
  dispose?(database: Database): void | Promise<void>;
  /**
   * An error as the adapter's driver throws it when the database cannot be reached or is too busy
   * to answer (connection refused, a lock wait that timed out): `isUnavailable` must recognise it.
   */
  unavailableError(): Error;
  /**
   * Whether the database lives with the process (a file: `serve` migrates it itself) rather than
   * on a shared server (migrated on purpose); the adapter must declare the same in `capabilities`.
   */
  embedded: boolean;
}

const clock = { now: () => Date.now() };

/**
 * The persistence contract. Every adapter, the project's or a third party's, runs this same suite
 * against a real database of its kind.
 */
export function persistenceContract<Database extends PersistenceDatabase>(
  options: PersistenceContractOptions<Database>,
) {
  describe(`persistence contract: ${options.name}`, () => {
    let database: Database | undefined;
    let store: Persistence;
    const handles: Persistence[] = [];
    const open = () => {
      const handle = database!.open();
      handles.push(handle);
      return handle;
    };
    const tenants = () => tenantService({ persistence: store, ids: testIds, clock });

    before(async () => {
      database = await options.create();
      store = open();
    });
    after(async () => {
      for (const handle of handles) await handle.close();
      if (database) await options.dispose?.(database);
    });

    it('migrates an empty database, concurrently from two handles, exactly once', async () => {
      const all = await store.pendingMigrations();
      assert.ok(all.length >= 2, 'a new database has every migration pending');
      const second = open();
      const [first, other] = await Promise.all([store.migrate(), second.migrate()]);
      assert.deepEqual(
        [...first.applied, ...other.applied].sort(),
        [...all].sort(),
        'each migration ran once between the two',
      );
      assert.deepEqual(await store.pendingMigrations(), []);
      assert.deepEqual((await store.migrate()).applied, [], 'migrating again does nothing');
      await store.ping();
    });

    it(`declares itself ${options.embedded ? 'embedded' : 'a shared server'} in its capabilities`, () => {
      assert.equal(store.capabilities.embedded, options.embedded);
    });

    it('does not call a broken statement or a violated constraint "unavailable" (that would be a 503 for a bug)', async () => {
      const created = await tenants().createOrganization({ name: 'Twice', credits: 0 });
      const duplicate = await store.organizations
        .create({ id: created.organization.id, name: 'Again', createdAt: 0 })
        .then(
          () => assert.fail('a second organization with the same id was stored'),
          (error: unknown) => error,
        );
      assert.equal(store.isUnavailable(duplicate), false);
      assert.equal(store.isUnavailable(new Error('boom')), false);
      assert.equal(store.isUnavailable(null), false);
      // What the driver throws while its database is away, also when wrapped as a cause.
      assert.equal(store.isUnavailable(options.unavailableError()), true);
      assert.equal(store.isUnavailable(new Error('query failed', { cause: options.unavailableError() })), true);
    });

    it('creates and reads organizations, stores and keys', async () => {
      const created = await tenants().createOrganization({ name: 'Acme', credits: 10 });
      const org = await store.organizations.get(created.organization.id);
      assert.equal(org?.name, 'Acme');
      assert.equal(org?.creditBalance, 10);
      assert.match(created.organization.id, /^org_[0-9A-Za-z]{24}$/);
      assert.deepEqual(await store.stores.get(org!.id, created.store.id), created.store);
      assert.deepEqual(await store.stores.findById(created.store.id), created.store);
      const keys = (await store.apiKeys.list(org!.id, { limit: 10 })).data;
      assert.deepEqual(keys.map((key) => key.kind).sort(), ['conversion', 'secret']);
      assert.ok((await store.organizations.list()).some((item) => item.id === org!.id));
    });

    it("pages an organization's keys newest first, by kind, and never another's", async () => {
      const { organization } = await tenants().createOrganization({ name: 'Many keys', credits: 0 });
      const other = await tenants().createOrganization({ name: 'Other keys', credits: 0 });
      for (let index = 0; index < 3; index++) await tenants().createKey(organization.id, 'secret', `extra ${index}`);
      const seen: string[] = [];
      for (let startingAfter: string | undefined; ; ) {
        const page = await store.apiKeys.list(organization.id, { limit: 2, startingAfter });
        seen.push(...page.data.map((key) => key.id));
        if (!page.hasMore) break;
        startingAfter = page.data.at(-1)!.id;
      }
      assert.equal(seen.length, 5, 'two made with the organization, three after');
      assert.equal(new Set(seen).size, 5);
      const times = (await store.apiKeys.list(organization.id, { limit: 10 })).data.map((key) => key.createdAt);
      assert.deepEqual(
        times,
        [...times].sort((a, b) => b - a),
        'newest first',
      );
      assert.equal((await store.apiKeys.list(organization.id, { limit: 10, kind: 'conversion' })).data.length, 1);
      const foreignKey = other.apiKey.record.id;
      assert.deepEqual(
        await store.apiKeys.list(organization.id, { limit: 10, startingAfter: foreignKey }),
        { data: [], hasMore: false },
        'a cursor of another organization reads nothing',
      );
    });

    it("tells any organization's generation status by id, for sweeps", async () => {
      const { organization } = await tenants().createOrganization({ name: 'Sweep', credits: 1 });
      const generation = generationRecord(organization.id, { status: 'processing', createdAt: Date.now() });
      await store.generations.create(generation);
      assert.equal(await store.generations.statusOf(generation.id), 'processing');
      await store.generations.fail(generation.id, { code: 'render_failed', message: 'x', completedAt: Date.now() });
      assert.equal(await store.generations.statusOf(generation.id), 'failed');
      assert.equal(await store.generations.statusOf('agen_missing'), null);
    });

    it('records the engine that rendered a generation, for its organization only', async () => {
      const { organization } = await tenants().createOrganization({ name: 'Rendered by', credits: 1 });
      const other = await tenants().createOrganization({ name: 'Not by', credits: 1 });
      const generation = generationRecord(organization.id, { status: 'processing', createdAt: Date.now() });
      await store.generations.create(generation);
      assert.equal(
        await store.generations.renderEngineOf(organization.id, generation.id),
        null,
        'none while it renders',
      );
      const variants = {
        list: { url: 'https://x/l.jpg', width: 200 },
        card: { url: 'https://x/c.jpg', width: 600 },
        detail: { url: 'https://x/d.jpg', width: 1200 },
      };
      assert.equal(
        await store.generations.complete(generation.id, {
          imageUrl: 'https://x/o.png',
          imageVariants: variants,
          completedAt: Date.now(),
          engine: 'fal',
        }),
        true,
      );
      assert.equal(await store.generations.renderEngineOf(organization.id, generation.id), 'fal');
      assert.equal(
        await store.generations.renderEngineOf(other.organization.id, generation.id),
        null,
        "another organization's generation",
      );
      assert.equal(await store.generations.renderEngineOf(organization.id, 'agen_missing'), null);
    });

    it('stores keys only as SHA-256 hashes', async () => {
      const { apiKey, conversionKey } = await tenants().createOrganization({ name: 'Hashes', credits: 0 });
      assert.match(apiKey.key, /^visualizer_[0-9A-Za-z]{32}$/);
      assert.match(conversionKey.key, /^viz_[0-9A-Za-z]{32}$/);
      const found = await store.apiKeys.findByHash(hashKey(apiKey.key));
      assert.equal(found?.id, apiKey.record.id);
      assert.equal(found?.keyHash, hashKey(apiKey.key));
      assert.match(found!.keyHash, /^[0-9a-f]{64}$/);
      assert.notEqual(found!.keyHash, apiKey.key);
      assert.equal(await store.apiKeys.findByHash(apiKey.key), null, 'the plain key is not what is stored');
      assert.ok(
        !JSON.stringify(await store.apiKeys.list(found!.organizationId, { limit: 10 })).includes(apiKey.key.slice(11)),
      );
    });

    it('isolates tenants: one organization cannot read, revoke or list what belongs to another', async () => {
      const a = await tenants().createOrganization({ name: 'A', credits: 5 });
      const b = await tenants().createOrganization({ name: 'B', credits: 5 });
      assert.equal(await store.stores.get(b.organization.id, a.store.id), null);
      assert.deepEqual(
        (await store.stores.list(b.organization.id, { limit: 10 })).data.map((s) => s.id),
        [b.store.id],
      );
      assert.deepEqual(
        await store.stores.list(b.organization.id, { limit: 10, startingAfter: a.store.id }),
        { data: [], hasMore: false },
        "A's store is no cursor in B's list",
      );
      assert.equal(await store.apiKeys.revoke(b.organization.id, a.apiKey.record.id, Date.now()), null);
      const stillActive = await store.apiKeys.findByHash(hashKey(a.apiKey.key));
      assert.equal(stillActive?.revokedAt, null, "B's revoke did not touch A's key");
      assert.ok(
        (await store.apiKeys.list(b.organization.id, { limit: 10 })).data.every(
          (key) => key.organizationId === b.organization.id,
        ),
      );
      assert.ok(
        (await store.credits.ledger(b.organization.id, { limit: 50 })).data.every(
          (entry) => entry.organizationId === b.organization.id,
        ),
      );
      const aEntry = (await store.credits.ledger(a.organization.id, { limit: 1 })).data[0]!;
      assert.deepEqual(
        await store.credits.ledger(b.organization.id, { limit: 50, startingAfter: aEntry.id }),
        { data: [], hasMore: false },
        "A's entry is no cursor in B's ledger",
      );
      await assert.rejects(tenants().revokeKey(b.organization.id, a.apiKey.record.id), { type: 'not_found_error' });
    });

    it('revokes a key once and keeps the first revocation time', async () => {
      const { organization, apiKey } = await tenants().createOrganization({ name: 'Revoke', credits: 0 });
      const first = await store.apiKeys.revoke(organization.id, apiKey.record.id, 1_000);
      const second = await store.apiKeys.revoke(organization.id, apiKey.record.id, 2_000);
      assert.equal(first?.revokedAt, 1_000);
      assert.equal(second?.revokedAt, 1_000);
    });

    it('debits only what the balance covers and records every change in the ledger', async () => {
      const { organization } = await tenants().createOrganization({ name: 'Ledger', credits: 3 });
      const change = (amount: number) => ({
        organizationId: organization.id,
        amount,
        reason: 'test',
        ledgerEntryId: testIds.id('cle_'),
        at: Date.now(),
      });
      assert.equal(await store.credits.debit(change(2)), 1);
      assert.equal(await store.credits.debit(change(2)), null, 'a debit the balance cannot cover is refused');
      assert.equal(await store.credits.grant(change(4)), 5);
      const { data: ledger } = await store.credits.ledger(organization.id, { limit: 10 });
      assert.deepEqual(
        ledger.map((entry) => [entry.delta, entry.balanceAfter]).sort(),
        [
          [-2, 1],
          [3, 3],
          [4, 5],
        ].sort(),
      );
    });

    it('never overdraws under 20 concurrent debits, from one handle or several', async () => {
      const { organization } = await tenants().createOrganization({ name: 'Race', credits: 50 });
      const handlesForRace = [store, open(), open()];
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          handlesForRace[index % handlesForRace.length]!.credits.debit({
            organizationId: organization.id,
            amount: 3,
            reason: 'race',
            ledgerEntryId: testIds.id('cle_'),
            at: Date.now(),
          }),
        ),
      );
      const succeeded = results.filter((balance) => balance !== null);
      assert.equal(succeeded.length, 16, '50 credits cover 16 debits of 3');
      assert.equal((await store.organizations.get(organization.id))?.creditBalance, 2);
      const debits = (await store.credits.ledger(organization.id, { limit: 100 })).data.filter(
        (entry) => entry.reason === 'race',
      );
      assert.equal(debits.length, 16);
      assert.deepEqual(
        debits.map((entry) => entry.balanceAfter).sort((x, y) => x - y),
        succeeded.sort((x, y) => x! - y!),
      );
      assert.ok(debits.every((entry) => entry.balanceAfter >= 0));
    });

    it("lists the ledger in the order it was written, whatever the entries' times and ids", async () => {
      const { organization } = await tenants().createOrganization({ name: 'Order', credits: 100 });
      const handlesForRace = [store, open(), open()];
      // One millisecond for all, and ids that sort against the order of the calls: neither can order them.
      const at = Date.now();
      const ids = Array.from({ length: 30 }, () => testIds.id('cle_'))
        .sort()
        .reverse();
      await Promise.all(
        ids.map((ledgerEntryId, index) => {
          const change = {
            organizationId: organization.id,
            amount: 1 + (index % 4),
            reason: 'order',
            ledgerEntryId,
            at,
          };
          const credits = handlesForRace[index % handlesForRace.length]!.credits;
          return index % 3 === 0 ? credits.grant(change) : credits.debit(change);
        }),
      );
      const balance = (await store.organizations.get(organization.id))?.creditBalance;
      const { data: ledger } = await store.credits.ledger(organization.id, { limit: 100 });
      assert.equal(ledger.length, 31, 'the opening grant and the 30 changes');
      assert.equal(ledger[0]!.balanceAfter, balance, 'the newest entry ends at the balance');
      for (let i = 0; i + 1 < ledger.length; i++) {
        assert.equal(
          ledger[i]!.balanceAfter,
          ledger[i + 1]!.balanceAfter + ledger[i]!.delta,
          `entry ${i} follows entry ${i + 1}`,
        );
      }
    });

    it('pages the ledger newest first: limit, starting_after and has_more cover every entry once', async () => {
      const { organization } = await tenants().createOrganization({ name: 'Ledger pages', credits: 1 });
      // Same time for all: the pages follow the order of writing, not times or ids.
      const at = Date.now();
      for (let i = 0; i < 6; i++)
        await store.credits.grant({
          organizationId: organization.id,
          amount: 1,
          reason: 'page',
          ledgerEntryId: testIds.id('cle_'),
          at,
        });
      const pages: { balances: number[]; hasMore: boolean }[] = [];
      for (let startingAfter: string | undefined; ; ) {
        const page = await store.credits.ledger(organization.id, { limit: 3, startingAfter });
        pages.push({ balances: page.data.map((entry) => entry.balanceAfter), hasMore: page.hasMore });
        if (!page.hasMore) break;
        startingAfter = page.data.at(-1)!.id;
      }
      assert.deepEqual(pages, [
        { balances: [7, 6, 5], hasMore: true },
        { balances: [4, 3, 2], hasMore: true },
        { balances: [1], hasMore: false },
      ]);
      assert.deepEqual(await store.credits.ledger(organization.id, { limit: 3, startingAfter: 'cle_unknown' }), {
        data: [],
        hasMore: false,
      });
    });

    it('pages stores newest first: limit, starting_after and has_more cover every store once', async () => {
      const { organization, store: first } = await tenants().createOrganization({ name: 'Store pages', credits: 0 });
      const created = [first];
      // Equal times: the id breaks the tie, as for every other list.
      const createdAt = first.createdAt + 1;
      for (const name of ['b', 'c', 'd', 'e']) {
        created.push(
          await store.stores.create({
            id: testIds.id('store_'),
            organizationId: organization.id,
            name,
            attributionWindowDays: 30,
            createdAt,
          }),
        );
      }
      const expected = [...created]
        .sort((x, y) => y.createdAt - x.createdAt || (x.id < y.id ? 1 : -1))
        .map((s) => s.id);
      const seen: string[] = [];
      const more: boolean[] = [];
      for (let startingAfter: string | undefined; ; ) {
        const page = await store.stores.list(organization.id, { limit: 2, startingAfter });
        seen.push(...page.data.map((s) => s.id));
        more.push(page.hasMore);
        if (!page.hasMore) break;
        startingAfter = page.data.at(-1)!.id;
      }
      assert.deepEqual(seen, expected);
      assert.deepEqual(more, [true, true, false]);
      assert.deepEqual(await store.stores.list(organization.id, { limit: 2, startingAfter: 'store_unknown' }), {
        data: [],
        hasMore: false,
      });
    });

    it("updates a widget's named fields only, and only in its own organization", async () => {
      const a = await tenants().createOrganization({ name: 'Widget A', credits: 0 });
      const b = await tenants().createOrganization({ name: 'Widget B', credits: 0 });
      const widget = {
        id: testIds.id('wdg_'),
        organizationId: a.organization.id,
        storeId: a.store.id,
        mode: 'virtual-try-on' as const,
        imageSize: '1K' as const,
        allowedOrigins: ['https://shop.example'],
        dailyGenerationCap: 500,
        dailyCreditCap: null as number | null,
        createdAt: Date.now(),
      };
      await store.widgets.create(widget);
      assert.equal(
        await store.widgets.update(b.organization.id, widget.id, { dailyGenerationCap: 1 }),
        null,
        "another organization's widget is not changed",
      );
      assert.deepEqual(await store.widgets.update(a.organization.id, widget.id, {}), widget);
      const changed = {
        ...widget,
        allowedOrigins: ['https://a.example', 'https://b.example'],
        dailyGenerationCap: 7,
        imageSize: '2K' as const,
      };
      assert.deepEqual(
        await store.widgets.update(a.organization.id, widget.id, {
          allowedOrigins: changed.allowedOrigins,
          dailyGenerationCap: 7,
          imageSize: '2K',
        }),
        changed,
      );
      assert.deepEqual(await store.widgets.findById(widget.id), changed);
      assert.equal(
        await store.widgets.update(a.organization.id, testIds.id('wdg_'), { mode: 'room-visualizer' }),
        null,
      );
      const capped = { ...changed, dailyCreditCap: 40 };
      assert.deepEqual(await store.widgets.update(a.organization.id, widget.id, { dailyCreditCap: 40 }), capped);
      assert.deepEqual(
        await store.widgets.update(a.organization.id, widget.id, { dailyGenerationCap: 7 }),
        capped,
        'a field left out keeps its value',
      );
      assert.deepEqual(
        await store.widgets.update(a.organization.id, widget.id, { dailyCreditCap: null }),
        changed,
        'null removes the cap',
      );
    });

    /** A widget of a new organization, for counting its days. */
    const newWidget = async (name: string) => {
      const { organization, store: shop } = await tenants().createOrganization({ name, credits: 0 });
      const widget = {
        id: testIds.id('wdg_'),
        organizationId: organization.id,
        storeId: shop.id,
        mode: 'virtual-try-on' as const,
        imageSize: '2K' as const,
        allowedOrigins: ['https://shop.example'],
        dailyGenerationCap: 500,
        dailyCreditCap: null,
        createdAt: Date.now(),
      };
      await store.widgets.create(widget);
      return widget;
    };

    it("counts a widget's generations and credits per day, within its caps, and gives refunded credits back", async () => {
      const widget = await newWidget('Widget days');
      const day = 20_000;
      const count = (credits: number, caps: { generations: number | null; credits: number | null }, on = day) =>
        store.widgets.countGeneration({ widgetId: widget.id, day: on, credits, caps });
      const none = { generations: null, credits: null };
      assert.deepEqual(
        await count(2, none),
        { counted: true, usage: { generations: 1, credits: 2 } },
        "the day's first generation",
      );
      assert.deepEqual(await count(3, none), { counted: true, usage: { generations: 2, credits: 5 } });
      assert.deepEqual(
        await count(2, { generations: null, credits: 6 }),
        { counted: false, usage: { generations: 2, credits: 5 } },
        'past the credit cap: nothing changes',
      );
      assert.deepEqual(
        await count(1, { generations: 3, credits: 6 }),
        { counted: true, usage: { generations: 3, credits: 6 } },
        'exactly at both caps',
      );
      assert.deepEqual(
        await count(1, { generations: 3, credits: null }),
        { counted: false, usage: { generations: 3, credits: 6 } },
        'past the generation cap',
      );
      assert.deepEqual(
        await count(3, { generations: null, credits: 2 }, day + 1),
        { counted: false, usage: { generations: 0, credits: 0 } },
        "a cap below one generation's cost refuses even the day's first",
      );
      assert.deepEqual(
        await count(2, { generations: 1, credits: 2 }, day + 1),
        { counted: true, usage: { generations: 1, credits: 2 } },
        'another day counts apart',
      );

      await store.widgets.refundCredits(widget.id, day, 3);
      assert.deepEqual(
        (await store.widgets.usageOn([widget.id], day)).get(widget.id),
        { generations: 3, credits: 3 },
        'a refund gives credits back, and the generation stays made',
      );
      assert.deepEqual(
        await count(3, { generations: null, credits: 6 }),
        { counted: true, usage: { generations: 4, credits: 6 } },
        'the refunded credits can be spent again',
      );
      await store.widgets.refundCredits(widget.id, day, 100);
      assert.deepEqual(
        (await store.widgets.usageOn([widget.id], day)).get(widget.id),
        { generations: 4, credits: 0 },
        'never below zero',
      );
      await store.widgets.refundCredits(widget.id, day - 1, 1);
      assert.deepEqual(
        (await store.widgets.usageOn([widget.id], day - 1)).size,
        0,
        'a refund to a day without generations changes nothing',
      );

      const other = await newWidget('Widget days 2');
      const both = await store.widgets.usageOn([widget.id, other.id, 'wdg_unknown'], day);
      assert.deepEqual([...both.keys()], [widget.id], 'only widgets with generations that day');
      assert.deepEqual((await store.widgets.usageOn([], day)).size, 0);
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.widgets.countGeneration({ widgetId: other.id, day, credits: 1, caps: none });
          throw new Error('rolled back');
        }),
        /rolled back/,
      );
      assert.equal(
        (await store.widgets.usageOn([other.id], day)).size,
        0,
        'counted only with the transaction that charged',
      );
    });

    it("never counts a widget's day past its caps under 24 concurrent generations, from one handle or several", async () => {
      const widget = await newWidget('Widget race');
      const handlesForRace = [store, open(), open()];
      const day = 20_100;
      // 2 credits each against a cap of 15: 7 fit (14), and the last credit fits none.
      const results = await Promise.all(
        Array.from({ length: 24 }, (_, index) =>
          handlesForRace[index % handlesForRace.length]!.transaction((tx) =>
            tx.widgets.countGeneration({
              widgetId: widget.id,
              day,
              credits: 2,
              caps: { generations: null, credits: 15 },
            }),
          ),
        ),
      );
      assert.equal(results.filter((result) => result.counted).length, 7);
      assert.deepEqual((await store.widgets.usageOn([widget.id], day)).get(widget.id), { generations: 7, credits: 14 });
      const counts = results
        .filter((result) => result.counted)
        .map((result) => result.usage.credits)
        .sort((x, y) => x - y);
      assert.deepEqual(counts, [2, 4, 6, 8, 10, 12, 14], 'each saw the one before it');

      const generationsDay = day + 1;
      const byCount = await Promise.all(
        Array.from({ length: 24 }, (_, index) =>
          handlesForRace[index % handlesForRace.length]!.widgets.countGeneration({
            widgetId: widget.id,
            day: generationsDay,
            credits: 1,
            caps: { generations: 5, credits: null },
          }),
        ),
      );
      assert.equal(byCount.filter((result) => result.counted).length, 5, 'the generation cap too');
    });

    it('rolls a transaction back when its work throws', async () => {
      const id = testIds.id('org_');
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.organizations.create({ id, name: 'Ghost', createdAt: Date.now() });
          throw new Error('changed my mind');
        }),
        /changed my mind/,
      );
      assert.equal(await store.organizations.get(id), null);
    });

    it("reads a delivery with its endpoint (deleted or not) and its event in one call, the event only from the endpoint's organization", async () => {
      const { organization } = await tenants().createOrganization({ name: 'Deliveries', credits: 0 });
      const { organization: stranger } = await tenants().createOrganization({ name: 'Stranger', credits: 0 });
      const now = Date.now();
      const endpoint = webhookEndpointRecord(organization.id, {
        previousSecrets: [
          { secret: 'whsec_bmV3ZXI=', expiresAt: now + 2 },
          { secret: 'whsec_b2xkZXI=', expiresAt: now + 1 },
        ],
        createdAt: now,
        updatedAt: now,
      });
      await store.webhookEndpoints.create(endpoint);
      const event = {
        id: testIds.id('evt_'),
        organizationId: organization.id,
        type: 'generation.completed',
        body: '{"id":"evt"}',
        createdAt: now,
      };
      const foreignEvent = { ...event, id: testIds.id('evt_'), organizationId: stranger.id };
      await store.events.append(event);
      await store.events.append(foreignEvent);
      const delivery = (eventId: string) => ({
        id: testIds.id('whd_'),
        eventId,
        endpointId: endpoint.id,
        status: 'pending' as const,
        attemptCount: 0,
        nextAttemptAt: now,
        lastError: null,
        createdAt: now,
        updatedAt: now,
      });
      const own = delivery(event.id);
      const crossed = delivery(foreignEvent.id);
      await store.deliveries.create(own);
      await store.deliveries.create(crossed);

      assert.deepEqual(await store.deliveries.forAttempt(own.id), {
        delivery: own,
        endpoint: { ...endpoint, deleted: false },
        event,
      });
      assert.equal(
        (await store.deliveries.forAttempt(crossed.id))?.event,
        null,
        "another organization's event is not read",
      );
      assert.equal(await store.deliveries.forAttempt(testIds.id('whd_')), null);
      await store.webhookEndpoints.delete(organization.id, endpoint.id, now + 1);
      assert.equal((await store.deliveries.forAttempt(own.id))?.endpoint?.deleted, true);
    });

    describe('events in creation order (the event stream reads them so)', () => {
      it("reads an organization's events from a time or just after an event, oldest first, of the types asked for, up to a limit", async () => {
        const { organization } = await tenants().createOrganization({ name: 'Event order', credits: 0 });
        const { organization: stranger } = await tenants().createOrganization({ name: 'Event stranger', credits: 0 });
        const base = 1_700_000_000_000;
        const event = (
          id: string,
          createdAt: number,
          type = 'generation.completed',
          organizationId = organization.id,
        ) => ({
          id,
          organizationId,
          type,
          body: JSON.stringify({ id, type }),
          createdAt,
        });
        // Appended out of creation order, as concurrent transactions commit; two share a millisecond.
        const events = [
          event('evt_order_c', base + 20),
          event('evt_order_a', base),
          event('evt_order_e', base + 30, 'generation.failed'),
          event('evt_order_b2', base + 10),
          event('evt_order_b1', base + 10, 'generation.failed'),
        ];
        for (const item of events) await store.events.append(item);
        await store.events.append(event('evt_order_foreign', base + 15, 'generation.completed', stranger.id));
        const ids = (found: Array<{ id: string }>) => found.map((item) => item.id);

        assert.deepEqual(ids(await store.events.since(organization.id, { from: { createdAt: base }, limit: 10 })), [
          'evt_order_a',
          'evt_order_b1',
          'evt_order_b2',
          'evt_order_c',
          'evt_order_e',
        ]);
        assert.deepEqual(ids(await store.events.since(organization.id, { from: { createdAt: base + 10 }, limit: 2 })), [
          'evt_order_b1',
          'evt_order_b2',
        ]);
        assert.deepEqual(
          ids(
            await store.events.since(organization.id, {
              from: { createdAt: base + 10, afterId: 'evt_order_b1' },
              limit: 10,
            }),
          ),
          ['evt_order_b2', 'evt_order_c', 'evt_order_e'],
        );
        assert.deepEqual(
          ids(
            await store.events.since(organization.id, {
              from: { createdAt: base + 10, afterId: 'evt_order_b2' },
              limit: 10,
            }),
          ),
          ['evt_order_c', 'evt_order_e'],
        );
        assert.deepEqual(
          ids(
            await store.events.since(organization.id, {
              from: { createdAt: base },
              types: ['generation.failed'],
              limit: 10,
            }),
          ),
          ['evt_order_b1', 'evt_order_e'],
        );
        assert.deepEqual(
          await store.events.since(organization.id, { from: { createdAt: base }, types: [], limit: 10 }),
          [],
        );
        assert.deepEqual(await store.events.since(organization.id, { from: { createdAt: base + 31 }, limit: 10 }), []);
        assert.deepEqual(await store.events.since(stranger.id, { from: { createdAt: base }, limit: 10 }), [
          event('evt_order_foreign', base + 15, 'generation.completed', stranger.id),
        ]);
        // The whole event comes back, body bytes and all.
        assert.deepEqual(
          (await store.events.since(organization.id, { from: { createdAt: base + 30 }, limit: 1 }))[0],
          events[2],
        );
      });
    });

    accountsContract(() => store, open);

    it('keeps transactions started together apart: one that throws takes none of the others with it', async () => {
      const orgIds = Array.from({ length: 8 }, () => testIds.id('org_'));
      const settled = await Promise.allSettled(
        orgIds.map((id, index) =>
          store.transaction(async (tx) => {
            await tx.organizations.create({ id, name: `Batch ${index}`, createdAt: Date.now() });
            if (index % 3 === 0) throw new Error(`transaction ${index} failed`);
            return index;
          }),
        ),
      );
      assert.deepEqual(
        settled.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : (outcome.reason as Error).message)),
        ['transaction 0 failed', 1, 2, 'transaction 3 failed', 4, 5, 'transaction 6 failed', 7],
      );
      // Resolved means committed: another handle sees the rows at once.
      const other = open();
      const stored = await Promise.all(orgIds.map((id) => other.organizations.get(id)));
      assert.deepEqual(
        stored.map((organization) => organization !== null),
        [false, true, true, false, true, true, false, true],
      );
    });

    persistenceAnalyticsContract({ store: () => store, tenants });
    persistenceRetentionContract({ store: () => store, open, tenants });
    persistenceVisitorsContract({ store: () => store, open, tenants });
  });
}
