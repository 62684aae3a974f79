import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { GenerationRecord, Persistence } from '../plugin.ts';
import { testIds } from './ids.ts';
import type { PersistenceSuiteContext } from './persistence-context.ts';
import { generationRecord } from './records.ts';

const dayMs = 86_400_000;
/** 2026-03-01T00:00:00Z: day 20513 since the epoch. */
const day0 = Date.UTC(2026, 2, 1);
const dayNumber = day0 / dayMs;

/**
 * Generations (`GenerationRepositories`), part of the persistence contract: the generation record
 * and its lists and per-day figures (grouped in the database by UTC day), deletion as scrubbed
 * tombstones, and the widget whose day a generation counts against, never past its caps however
 * many generations race.
 */
export function persistenceGenerationsContract(context: PersistenceSuiteContext) {
  const { open, tenants } = context;
  const generation = (organizationId: string, fields: Partial<GenerationRecord>) =>
    generationRecord(organizationId, { createdAt: day0, ...fields });

  describe('generations and widget days', () => {
    let store!: Persistence;
    before(() => {
      store = context.store();
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

    it('counts generations per UTC day and status with the credits charged, for the organization or one store', async () => {
      const store = context.store();
      const { organization, store: shop } = await context
        .tenants()
        .createOrganization({ name: 'Daily generations', credits: 0 });
      const { organization: stranger } = await context
        .tenants()
        .createOrganization({ name: 'Daily stranger', credits: 0 });
      const rows = [
        generation(organization.id, { createdAt: day0, creditsCharged: 2 }),
        generation(organization.id, { createdAt: day0 + dayMs - 1, status: 'failed', creditsCharged: 1 }),
        generation(organization.id, { createdAt: day0 + 5, storeId: shop.id, widgetId: 'wid_1', creditsCharged: 1 }),
        generation(organization.id, {
          createdAt: day0 + 2 * dayMs + 1,
          status: 'processing',
          storeId: shop.id,
          creditsCharged: 4,
        }),
        // Outside [from, to) and another organization's: not counted.
        generation(organization.id, { createdAt: day0 - 1 }),
        generation(organization.id, { createdAt: day0 + 3 * dayMs }),
        generation(stranger.id, { createdAt: day0 + 1 }),
      ];
      for (const row of rows) await store.generations.create(row);
      const range = { from: day0, to: day0 + 3 * dayMs };
      assert.deepEqual(await store.generations.daily({ organizationId: organization.id }, range), [
        { day: dayNumber, status: 'complete', count: 2, credits: 3 },
        { day: dayNumber, status: 'failed', count: 1, credits: 1 },
        { day: dayNumber + 2, status: 'processing', count: 1, credits: 4 },
      ]);
      assert.deepEqual(await store.generations.daily({ organizationId: organization.id, storeId: shop.id }, range), [
        { day: dayNumber, status: 'complete', count: 1, credits: 1 },
        { day: dayNumber + 2, status: 'processing', count: 1, credits: 4 },
      ]);
      assert.deepEqual(
        await store.generations.daily(
          { organizationId: organization.id },
          { from: day0 + 4 * dayMs, to: day0 + 5 * dayMs },
        ),
        [],
      );
    });

    it('filters generation lists by status, mode and creation time, newest first, paged', async () => {
      const store = context.store();
      const { organization } = await context.tenants().createOrganization({ name: 'Filtered generations', credits: 0 });
      const made: GenerationRecord[] = [];
      for (let index = 0; index < 12; index++) {
        const row = generation(organization.id, {
          createdAt: day0 + index * 1000,
          status: index % 3 === 0 ? 'failed' : 'complete',
          mode: index % 2 === 0 ? 'room-visualizer' : 'virtual-try-on',
        });
        made.push(row);
        await store.generations.create(row);
      }
      const expected = (keep: (row: GenerationRecord) => boolean) =>
        made
          .filter(keep)
          .reverse()
          .map((row) => row.id);
      const all = async (
        options: Omit<Parameters<Persistence['generations']['list']>[1], 'limit' | 'startingAfter'>,
      ) => {
        const ids: string[] = [];
        for (let startingAfter: string | undefined; ; ) {
          const page = await store.generations.list(organization.id, { ...options, limit: 2, startingAfter });
          ids.push(...page.data.map((row) => row.id));
          if (!page.hasMore) return ids;
          startingAfter = page.data.at(-1)!.id;
        }
      };
      assert.deepEqual(
        await all({ status: 'failed' }),
        expected((row) => row.status === 'failed'),
      );
      assert.deepEqual(
        await all({ mode: 'room-visualizer' }),
        expected((row) => row.mode === 'room-visualizer'),
      );
      assert.deepEqual(
        await all({ from: day0 + 3000, to: day0 + 9000 }),
        expected((row) => row.createdAt >= day0 + 3000 && row.createdAt < day0 + 9000),
      );
      assert.deepEqual(
        await all({ status: 'complete', mode: 'virtual-try-on', from: day0 + 2000 }),
        expected((row) => row.status === 'complete' && row.mode === 'virtual-try-on' && row.createdAt >= day0 + 2000),
      );
      assert.deepEqual(await all({ to: day0 }), []);
    });

    it('deletes generations as scrubbed tombstones that reads leave out, fails a processing one, and finds expired ones by age', async () => {
      const store = context.store();
      const { organization } = await context.tenants().createOrganization({ name: 'Deletions', credits: 0 });
      const { organization: other } = await context.tenants().createOrganization({ name: 'Others', credits: 0 });
      const personal = {
        hint: 'blue',
        metadata: { customer: 'c-1' },
        visitorId: 'vis_1',
        sessionId: 'ses_1',
        imageUrl: 'https://cdn.example/gen/x/original.png',
        errorMessage: null,
      };
      const done = generationRecord(organization.id, {
        ...personal,
        createdAt: 10,
        completedAt: 11,
        creditsCharged: 2,
      });
      const rendering = generationRecord(organization.id, { status: 'processing', createdAt: 20, creditsCharged: 3 });
      const young = generationRecord(organization.id, { status: 'failed', createdAt: 5_000, completedAt: 5_001 });
      const foreign = generationRecord(other.id, { createdAt: 10 });
      for (const record of [done, rendering, young, foreign]) await store.generations.create(record);
      assert.deepEqual(
        await store.generations.expired(organization.id, 1_000, 10),
        [done.id],
        'ended, live and older than the cutoff, not processing',
      );

      const marked = await store.transaction((tx) =>
        tx.generations.markDeleted(organization.id, [done.id, rendering.id, foreign.id, 'agen_unknown'], {
          at: 100,
          reason: 'deleted',
        }),
      );
      assert.deepEqual(
        marked.sort((a, b) => a.id.localeCompare(b.id)),
        [
          { id: done.id, status: 'complete', creditsCharged: 2, widgetId: null, createdAt: done.createdAt },
          { id: rendering.id, status: 'processing', creditsCharged: 3, widgetId: null, createdAt: rendering.createdAt },
        ].sort((a, b) => a.id.localeCompare(b.id)),
        'only live generations of the organization',
      );
      assert.deepEqual(
        await store.transaction((tx) =>
          tx.generations.markDeleted(organization.id, [done.id], { at: 200, reason: 'expired' }),
        ),
        [],
        'once',
      );
      assert.equal(await store.generations.get(organization.id, done.id), null);
      assert.equal(await store.generations.get(organization.id, rendering.id), null);
      assert.ok(await store.generations.get(other.id, foreign.id), "another organization's is untouched");
      assert.deepEqual(await store.generations.tombstone(organization.id, done.id), {
        id: done.id,
        deletedAt: 100,
        reason: 'deleted',
      });
      assert.equal(await store.generations.tombstone(other.id, done.id), null, 'tenancy');
      assert.equal(await store.generations.tombstone(organization.id, young.id), null, 'a live one has none');
      assert.equal(await store.generations.statusOf(rendering.id), 'failed', 'no render can complete it any more');
      assert.equal(
        await store.generations.complete(rendering.id, {
          imageUrl: 'https://cdn.example/x.png',
          imageVariants: {
            list: { url: 'https://x/l.jpg', width: 200 },
            card: { url: 'https://x/c.jpg', width: 600 },
            detail: { url: 'https://x/d.jpg', width: 1200 },
          },
          completedAt: 300,
        }),
        false,
      );
      const listed = await store.generations.list(organization.id, { limit: 10 });
      assert.deepEqual(
        listed.data.map((generation) => generation.id),
        [young.id],
      );
      assert.deepEqual(
        await store.generations.expired(organization.id, 10_000, 10),
        [young.id],
        'tombstones never expire again',
      );
      assert.deepEqual(
        (await store.generations.daily({ organizationId: organization.id }, { from: 0, to: 86_400_000 })).reduce(
          (sum, day) => sum + day.count,
          0,
        ),
        3,
        'daily counts still count deleted generations',
      );

      await store.organizations.setRenderRetention(organization.id, 30);
      assert.equal((await store.organizations.get(organization.id))?.renderRetentionDays, 30);
      assert.ok(
        (await store.organizations.withRenderRetention()).some(
          (entry) => entry.id === organization.id && entry.renderRetentionDays === 30,
        ),
      );
      assert.ok(!(await store.organizations.withRenderRetention()).some((entry) => entry.id === other.id));
      await store.organizations.setRenderRetention(organization.id, null);
      assert.equal((await store.organizations.get(organization.id))?.renderRetentionDays, null);
      assert.equal(await store.organizations.setRenderRetention('org_unknown', 3), null);
    });
  });
}
