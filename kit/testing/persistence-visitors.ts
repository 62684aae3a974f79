import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { VisitorErasure } from '../plugin.ts';
import { testIds } from './ids.ts';
import type { PersistenceSuiteContext } from './persistence-context.ts';
import { conversionRecord, generationRecord } from './records.ts';

/**
 * A widget visitor's data and its erasure (GDPR Articles 15 and 17; `VisitorRepositories`), part of the persistence
 * contract: what is found for a visitor across the organization's stores and nothing of another
 * organization's, the erasure's steps in bounded batches, and the erasure record, which keeps
 * nothing about the visitor once complete.
 */
export function persistenceVisitorsContract(context: PersistenceSuiteContext) {
  const conversion = conversionRecord;
  const erasure = (organizationId: string, fields: Partial<VisitorErasure> = {}): VisitorErasure => ({
    id: testIds.id('vera_'),
    organizationId,
    status: 'pending',
    requestedBy: { type: 'api_key', id: 'key_test' },
    requestedAt: Date.now(),
    completedAt: null,
    generationsDeleted: 0,
    identitiesDeleted: 0,
    conversionsUnlinked: 0,
    ...fields,
  });

  /** An organization with two stores, a visitor seen in both, and a stranger with the same visitor id. */
  async function seeded(name: string) {
    const store = context.store();
    const tenants = context.tenants();
    const { organization, store: first } = await tenants.createOrganization({ name, credits: 0 });
    const second = await tenants.createStore(organization.id, { name: `${name} outlet` });
    const { organization: stranger, store: strangerStore } = await tenants.createOrganization({
      name: `${name} stranger`,
      credits: 0,
    });
    const visitorId = `v-${testIds.id('x')}`;
    const made = (
      organizationId: string,
      storeId: string,
      sessionId: string | null,
      createdAt: number,
      visitor = visitorId,
    ) => generationRecord(organizationId, { storeId, widgetId: 'wdg_test', visitorId: visitor, sessionId, createdAt });
    const generations = [
      made(organization.id, first.id, 's-1', 10),
      made(organization.id, first.id, 's-1', 20),
      made(organization.id, second.id, 's-2', 30),
      made(organization.id, second.id, null, 40),
    ];
    const others = [
      made(stranger.id, strangerStore.id, 's-1', 15),
      made(organization.id, first.id, 's-other', 25, 'v-someone-else'),
    ];
    for (const generation of [...generations, ...others]) await store.generations.create(generation);
    const identity = (organizationId: string, storeId: string, sessionId: string | null, at: number) =>
      store.visitorIdentities.upsert({
        organizationId,
        storeId,
        visitorId,
        sessionId,
        userId: `user-${storeId}`,
        traits: { plan: 'gold' },
        createdAt: at,
        updatedAt: at,
      });
    await identity(organization.id, first.id, 's-3', 50);
    await identity(organization.id, second.id, null, 60);
    await identity(stranger.id, strangerStore.id, 's-1', 70);
    const conversions = {
      byVisitor: conversion(organization.id, first.id, { visitorId, sessionId: 's-1', orderCreatedAt: 100 }),
      bySessionOnly: conversion(organization.id, second.id, { visitorId: null, sessionId: 's-2', orderCreatedAt: 200 }),
      byIdentitySession: conversion(organization.id, first.id, {
        visitorId: 'v-form-typo',
        sessionId: 's-3',
        orderCreatedAt: 300,
      }),
      someoneElse: conversion(organization.id, first.id, {
        visitorId: 'v-someone-else',
        sessionId: 's-other',
        orderCreatedAt: 400,
      }),
      stranger: conversion(stranger.id, strangerStore.id, { visitorId, sessionId: 's-1', orderCreatedAt: 500 }),
    };
    for (const row of Object.values(conversions)) assert.equal(await store.conversions.insertIfAbsent(row), true);
    return { store, organization, stores: [first, second], stranger, visitorId, generations, others, conversions };
  }

  describe("a visitor's data and its erasure", () => {
    it("finds the visitor's generations, identities and conversions across the organization's stores, newest first, paged, with totals", async () => {
      const { store, organization, stores, stranger, visitorId, generations, others, conversions } =
        await seeded('Access');
      const found = await store.visitorData.generations(organization.id, visitorId, { limit: 10 });
      assert.equal(found.hasMore, false);
      assert.deepEqual(
        found.data.map((generation) => generation.id),
        generations.map((generation) => generation.id).reverse(),
        'newest first, both stores, nothing of another visitor or organization',
      );
      assert.deepEqual(found.data[0], generations[3], 'whole records');
      const bounded = await store.visitorData.generations(organization.id, visitorId, { limit: 2 });
      assert.deepEqual(
        [bounded.hasMore, bounded.data.map((generation) => generation.id)],
        [true, [generations[3]!.id, generations[2]!.id]],
      );
      const next = await store.visitorData.generations(organization.id, visitorId, {
        limit: 2,
        startingAfter: generations[2]!.id,
      });
      assert.deepEqual(
        [next.hasMore, next.data.map((generation) => generation.id)],
        [false, [generations[1]!.id, generations[0]!.id]],
        'the next page continues after the cursor',
      );

      const identities = await store.visitorData.identities(organization.id, visitorId, { limit: 10 });
      assert.equal(identities.hasMore, false);
      assert.deepEqual(
        identities.data.map((identity) => [identity.storeId, identity.sessionId, identity.userId]),
        [
          [stores[1]!.id, null, `user-${stores[1]!.id}`],
          [stores[0]!.id, 's-3', `user-${stores[0]!.id}`],
        ],
      );
      const firstIdentity = await store.visitorData.identities(organization.id, visitorId, { limit: 1 });
      assert.deepEqual(
        [firstIdentity.hasMore, firstIdentity.data.map((identity) => identity.storeId)],
        [true, [stores[1]!.id]],
      );
      const nextIdentity = await store.visitorData.identities(organization.id, visitorId, {
        limit: 1,
        startingAfter: stores[1]!.id,
      });
      assert.deepEqual(
        [nextIdentity.hasMore, nextIdentity.data.map((identity) => identity.storeId)],
        [false, [stores[0]!.id]],
        "an identity's cursor is its store id",
      );

      const linked = await store.visitorData.conversions(organization.id, visitorId, { limit: 10 });
      assert.deepEqual(
        linked.data.map((row) => row.id),
        [conversions.byIdentitySession.id, conversions.bySessionOnly.id, conversions.byVisitor.id],
        "by visitor id, by a generation's session, by an identity's session",
      );
      const firstConversions = await store.visitorData.conversions(organization.id, visitorId, { limit: 2 });
      assert.deepEqual(
        [firstConversions.hasMore, firstConversions.data.map((row) => row.id)],
        [true, [conversions.byIdentitySession.id, conversions.bySessionOnly.id]],
      );
      const nextConversions = await store.visitorData.conversions(organization.id, visitorId, {
        limit: 2,
        startingAfter: conversions.bySessionOnly.id,
      });
      assert.deepEqual(
        [nextConversions.hasMore, nextConversions.data.map((row) => row.id)],
        [false, [conversions.byVisitor.id]],
      );

      assert.deepEqual(await store.visitorData.counts(organization.id, visitorId), {
        generations: 4,
        identities: 2,
        conversions: 3,
      });

      // A cursor that is not one of the visitor's items (another visitor's, another organization's) gives an empty page.
      const empty = { data: [], hasMore: false };
      assert.deepEqual(
        await store.visitorData.generations(organization.id, visitorId, { limit: 10, startingAfter: others[1]!.id }),
        empty,
      );
      assert.deepEqual(
        await store.visitorData.generations(organization.id, visitorId, { limit: 10, startingAfter: 'agen_unknown' }),
        empty,
      );
      assert.deepEqual(
        await store.visitorData.identities(organization.id, visitorId, {
          limit: 10,
          startingAfter: (await context.tenants().listStores(stranger.id))[0]!.id,
        }),
        empty,
      );
      assert.deepEqual(
        await store.visitorData.conversions(organization.id, visitorId, {
          limit: 10,
          startingAfter: conversions.someoneElse.id,
        }),
        empty,
      );

      assert.deepEqual(await store.visitorData.generations(organization.id, 'v-nobody', { limit: 10 }), empty);
      assert.deepEqual(await store.visitorData.identities(organization.id, 'v-nobody', { limit: 10 }), empty);
      assert.deepEqual(await store.visitorData.conversions(organization.id, 'v-nobody', { limit: 10 }), empty);
      assert.deepEqual(await store.visitorData.counts(organization.id, 'v-nobody'), {
        generations: 0,
        identities: 0,
        conversions: 0,
      });
    });

    it('pages past 100 of each kind to the last item, each once, in order, ties broken by id (or store id)', async () => {
      const store = context.store();
      const tenants = context.tenants();
      const { organization, store: shop } = await tenants.createOrganization({ name: 'Many items', credits: 0 });
      const visitorId = `v-${testIds.id('x')}`;
      // Three at each time, so pages end inside a run of equal times.
      const generations = Array.from({ length: 150 }, (_, index) =>
        generationRecord(organization.id, {
          storeId: shop.id,
          widgetId: 'wdg_test',
          visitorId,
          sessionId: `s-many-${index % 7}`,
          createdAt: 1_000 + Math.floor(index / 3),
        }),
      );
      for (const generation of generations) await store.generations.create(generation);
      // By the visitor id, and by one of its generations' sessions only.
      const conversions = Array.from({ length: 130 }, (_, index) =>
        conversion(
          organization.id,
          shop.id,
          index % 2 === 0
            ? { visitorId, sessionId: null, orderCreatedAt: 2_000 + Math.floor(index / 3) }
            : { visitorId: null, sessionId: `s-many-${index % 7}`, orderCreatedAt: 2_000 + Math.floor(index / 3) },
        ),
      );
      for (const row of conversions) assert.equal(await store.conversions.insertIfAbsent(row), true);
      const stores = [
        shop,
        ...(await Promise.all([1, 2, 3].map((n) => tenants.createStore(organization.id, { name: `Many ${n}` })))),
      ];
      for (const { id: storeId } of stores) {
        await store.visitorIdentities.upsert({
          organizationId: organization.id,
          storeId,
          visitorId,
          sessionId: null,
          userId: 'user-many',
          traits: {},
          createdAt: 3_000,
          updatedAt: 3_000,
        });
      }

      /** Every page of `list`, `limit` at a time, following the cursor. */
      async function all<T>(
        list: (page: { limit: number; startingAfter?: string }) => Promise<{ data: T[]; hasMore: boolean }>,
        cursorOf: (item: T) => string,
        limit: number,
      ) {
        const items: T[] = [];
        const sizes: number[] = [];
        for (let startingAfter: string | undefined; ; ) {
          const page = await list({ limit, ...(startingAfter ? { startingAfter } : {}) });
          items.push(...page.data);
          sizes.push(page.data.length);
          if (!page.hasMore) return { items, sizes };
          startingAfter = cursorOf(page.data.at(-1)!);
        }
      }
      const newestFirst = <T extends { id: string }>(rows: T[], time: (row: T) => number) =>
        [...rows].sort((a, b) => time(b) - time(a) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).map((row) => row.id);

      const pagedGenerations = await all(
        (page) => store.visitorData.generations(organization.id, visitorId, page),
        (generation) => generation.id,
        100,
      );
      assert.deepEqual(pagedGenerations.sizes, [100, 50]);
      assert.deepEqual(
        pagedGenerations.items.map((generation) => generation.id),
        newestFirst(generations, (generation) => generation.createdAt),
      );

      const pagedConversions = await all(
        (page) => store.visitorData.conversions(organization.id, visitorId, page),
        (row) => row.id,
        100,
      );
      assert.deepEqual(pagedConversions.sizes, [100, 30]);
      assert.deepEqual(
        pagedConversions.items.map((row) => row.id),
        newestFirst(conversions, (row) => row.orderCreatedAt),
      );

      const pagedIdentities = await all(
        (page) => store.visitorData.identities(organization.id, visitorId, page),
        (identity) => identity.storeId,
        3,
      );
      assert.deepEqual(pagedIdentities.sizes, [3, 1]);
      assert.deepEqual(
        pagedIdentities.items.map((identity) => identity.storeId),
        stores.map((row) => row.id).sort(),
        'one time: by store id',
      );

      assert.deepEqual(await store.visitorData.counts(organization.id, visitorId), {
        generations: 150,
        identities: 4,
        conversions: 130,
      });
    });

    it('erases in bounded batches: generations taken with their session ids, identities deleted, conversions unlinked and kept', async () => {
      const { store, organization, stranger, visitorId, generations, others, conversions } =
        await seeded('Erase steps');
      const taken = await store.transaction((tx) => tx.visitorData.detachGenerations(organization.id, visitorId, 3));
      assert.equal(taken.length, 3, 'a batch is at most its limit');
      const rest = await store.transaction((tx) => tx.visitorData.detachGenerations(organization.id, visitorId, 3));
      assert.equal(rest.length, 1);
      assert.deepEqual(
        await store.transaction((tx) => tx.visitorData.detachGenerations(organization.id, visitorId, 3)),
        [],
        'taken once',
      );
      assert.deepEqual(
        [...taken, ...rest].sort((a, b) => a.id.localeCompare(b.id)),
        generations
          .map((generation) => ({ id: generation.id, sessionId: generation.sessionId }))
          .sort((a, b) => a.id.localeCompare(b.id)),
        'each with the session id it had',
      );
      const detached = await store.generations.get(organization.id, generations[0]!.id);
      assert.deepEqual([detached?.visitorId, detached?.sessionId], [null, null], 'the ids are gone from the row');
      assert.equal((await store.visitorData.counts(organization.id, visitorId)).generations, 0);
      for (const other of others)
        assert.equal(
          (await store.generations.get(other.organizationId, other.id))?.visitorId,
          other.visitorId,
          "another visitor's and organization's stay",
        );

      const identities = await store.transaction((tx) =>
        tx.visitorData.deleteIdentities(organization.id, visitorId, 1),
      );
      assert.equal(identities.length, 1);
      const more = await store.transaction((tx) => tx.visitorData.deleteIdentities(organization.id, visitorId, 1));
      assert.deepEqual([...identities, ...more].map((identity) => identity.sessionId).sort(), ['s-3', null].sort());
      assert.deepEqual(
        await store.transaction((tx) => tx.visitorData.deleteIdentities(organization.id, visitorId, 1)),
        [],
      );
      assert.ok(
        await store.visitorIdentities.get((await context.tenants().listStores(stranger.id))[0]!.id, visitorId),
        "the stranger's identity stays",
      );

      assert.deepEqual(
        await store.transaction((tx) => tx.visitorData.unlinkConversionsOfVisitor(organization.id, visitorId, 10, 999)),
        [{ id: conversions.byVisitor.id, sessionId: 's-1' }],
        'with the session id it had',
      );
      assert.deepEqual(
        await store.transaction((tx) => tx.visitorData.unlinkConversionsOfVisitor(organization.id, visitorId, 10, 999)),
        [],
      );
      assert.equal(
        await store.transaction((tx) =>
          tx.visitorData.unlinkConversionsOfSessions(organization.id, ['s-1', 's-2', 's-3'], 1, 999),
        ),
        1,
        'bounded',
      );
      assert.equal(
        await store.transaction((tx) =>
          tx.visitorData.unlinkConversionsOfSessions(organization.id, ['s-1', 's-2', 's-3'], 10, 999),
        ),
        1,
      );
      assert.equal(
        await store.transaction((tx) =>
          tx.visitorData.unlinkConversionsOfSessions(organization.id, ['s-1', 's-2', 's-3'], 10, 999),
        ),
        0,
      );
      assert.equal(
        await store.transaction((tx) => tx.visitorData.unlinkConversionsOfSessions(organization.id, [], 10, 999)),
        0,
      );

      const page = await store.conversions.list(organization.id, { limit: 10 });
      const byId = new Map(page.data.map((row) => [row.id, row]));
      for (const kept of [conversions.byVisitor, conversions.bySessionOnly, conversions.byIdentitySession]) {
        assert.deepEqual(
          byId.get(kept.id),
          { ...kept, visitorId: null, sessionId: null, updatedAt: 999 },
          'kept whole, without the ids',
        );
      }
      assert.deepEqual(
        byId.get(conversions.someoneElse.id),
        conversions.someoneElse,
        "another visitor's conversion is left alone",
      );
      assert.equal(
        (await store.conversions.list(stranger.id, { limit: 10 })).data[0]?.visitorId,
        visitorId,
        "another organization's too",
      );
    });

    it("follows the session ids of the visitor's own conversions: an order reported without the visitor id but in its session is the visitor's", async () => {
      const store = context.store();
      const { organization, store: shop } = await context
        .tenants()
        .createOrganization({ name: 'Conversion sessions', credits: 0 });
      const visitorId = `v-${testIds.id('x')}`;
      // The browser's `$conversion` carries both ids; the shop's order webhook only the session.
      const browser = conversion(organization.id, shop.id, { visitorId, sessionId: 's-9', orderCreatedAt: 100 });
      const webhook = conversion(organization.id, shop.id, { visitorId: null, sessionId: 's-9', orderCreatedAt: 200 });
      const unrelated = conversion(organization.id, shop.id, {
        visitorId: null,
        sessionId: 's-10',
        orderCreatedAt: 300,
      });
      for (const row of [browser, webhook, unrelated]) assert.equal(await store.conversions.insertIfAbsent(row), true);

      const found = await store.visitorData.conversions(organization.id, visitorId, { limit: 10 });
      assert.deepEqual(
        found.data.map((row) => row.id),
        [webhook.id, browser.id],
      );
      assert.equal((await store.visitorData.counts(organization.id, visitorId)).conversions, 2);

      const unlinked = await store.transaction((tx) =>
        tx.visitorData.unlinkConversionsOfVisitor(organization.id, visitorId, 10, 999),
      );
      assert.deepEqual(
        unlinked,
        [{ id: browser.id, sessionId: 's-9' }],
        'the session id it had, for the erasure to follow',
      );
      assert.equal(
        await store.transaction((tx) => tx.visitorData.unlinkConversionsOfSessions(organization.id, ['s-9'], 10, 999)),
        1,
      );
      const page = await store.conversions.list(organization.id, { limit: 10 });
      assert.deepEqual(
        page.data.map((row) => [row.id, row.visitorId, row.sessionId]),
        [
          [unrelated.id, null, 's-10'],
          [webhook.id, null, null],
          [browser.id, null, null],
        ],
      );
    });

    it('records an erasure once per pending visitor, keeps its work apart, and forgets the visitor when it completes', async () => {
      const store = context.store();
      const { organization } = await context.tenants().createOrganization({ name: 'Erasure records', credits: 0 });
      const { organization: stranger } = await context
        .tenants()
        .createOrganization({ name: 'Erasure stranger', credits: 0 });
      const first = erasure(organization.id, { requestedAt: 1_000 });
      assert.deepEqual(await store.transaction((tx) => tx.visitorErasures.request(first, 'v-erased')), {
        erasure: first,
        created: true,
      });
      // Racing requests for the same pending visitor, from several handles: one erasure.
      const handles = [store, context.open()];
      const racing = await Promise.all(
        Array.from({ length: 6 }, (_, index) =>
          handles[index % 2]!.transaction((tx) =>
            tx.visitorErasures.request(erasure(organization.id, { requestedAt: 2_000 + index }), 'v-erased'),
          ),
        ),
      );
      assert.deepEqual(
        racing.map((outcome) => [outcome.created, outcome.erasure.id]),
        Array(6).fill([false, first.id]),
      );
      const other = erasure(organization.id, { requestedAt: 3_000, requestedBy: { type: 'user', id: 'usr_admin' } });
      assert.equal((await store.transaction((tx) => tx.visitorErasures.request(other, 'v-other'))).created, true);
      const foreign = erasure(stranger.id, { requestedAt: 4_000 });
      assert.equal(
        (await store.transaction((tx) => tx.visitorErasures.request(foreign, 'v-erased'))).created,
        true,
        'the same visitor id in another organization is another visitor',
      );

      assert.deepEqual(await store.visitorErasures.get(organization.id, first.id), first);
      assert.equal(await store.visitorErasures.get(stranger.id, first.id), null, 'tenancy');
      assert.deepEqual(await store.visitorErasures.pendingFor(organization.id, 'v-erased'), first);
      assert.equal(await store.visitorErasures.pendingFor(organization.id, 'v-nobody'), null);
      assert.deepEqual(await store.visitorErasures.subject(first.id), {
        organizationId: organization.id,
        visitorId: 'v-erased',
      });

      const page = await store.visitorErasures.list(organization.id, { limit: 1 });
      assert.deepEqual([page.data.map((row) => row.id), page.hasMore], [[other.id], true]);
      const next = await store.visitorErasures.list(organization.id, { limit: 1, startingAfter: other.id });
      assert.deepEqual([next.data.map((row) => row.id), next.hasMore], [[first.id], false]);
      assert.deepEqual(await store.visitorErasures.list(organization.id, { limit: 5, startingAfter: foreign.id }), {
        data: [],
        hasMore: false,
      });

      await store.transaction(async (tx) => {
        await tx.visitorErasures.addSessions(first.id, ['s-b', 's-a', 's-b']);
        await tx.visitorErasures.addSessions(first.id, ['s-a', 's-c']);
        await tx.visitorErasures.progress(first.id, { generationsDeleted: 3 });
        await tx.visitorErasures.progress(first.id, {
          generationsDeleted: 2,
          identitiesDeleted: 1,
          conversionsUnlinked: 4,
        });
        await tx.visitorErasures.progress(first.id, {});
      });
      assert.deepEqual(await store.visitorErasures.sessions(first.id, 2), ['s-a', 's-b']);
      await store.transaction((tx) => tx.visitorErasures.removeSessions(first.id, ['s-a']));
      assert.deepEqual(await store.visitorErasures.sessions(first.id, 10), ['s-b', 's-c']);

      assert.equal(await store.transaction((tx) => tx.visitorErasures.complete(first.id, 5_000)), true);
      assert.equal(
        await store.transaction((tx) => tx.visitorErasures.complete(first.id, 6_000)),
        false,
        'completed once',
      );
      assert.deepEqual(await store.visitorErasures.get(organization.id, first.id), {
        ...first,
        status: 'complete',
        completedAt: 5_000,
        generationsDeleted: 5,
        identitiesDeleted: 1,
        conversionsUnlinked: 4,
      });
      assert.equal(await store.visitorErasures.subject(first.id), null, 'the visitor id is gone');
      assert.deepEqual(await store.visitorErasures.sessions(first.id, 10), [], 'and so are its session ids');
      assert.equal(await store.visitorErasures.pendingFor(organization.id, 'v-erased'), null);
      const again = erasure(organization.id);
      assert.equal(
        (await store.transaction((tx) => tx.visitorErasures.request(again, 'v-erased'))).created,
        true,
        'once complete, the visitor may be erased again',
      );
    });
  });
}
