import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { hashKey } from '../../core/domain/api-keys.ts';
import type { Persistence } from '../plugin.ts';
import { testIds } from './ids.ts';
import type { PersistenceSuiteContext } from './persistence-context.ts';

/**
 * Tenancy (`TenancyRepositories`), part of the persistence contract: organizations, their stores
 * and API keys (kept only as hashes, never reachable from another organization), and the credit
 * balance with its ledger, which never goes below zero however many debits race.
 */
export function persistenceTenancyContract(context: PersistenceSuiteContext) {
  const { open, tenants } = context;
  describe('tenancy: organizations, stores, keys and credits', () => {
    let store!: Persistence;
    before(() => {
      store = context.store();
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
  });
}
