import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashKey } from '../../core/domain/api-keys.ts';
import type { Session, StoredUser, UserRole, UserToken } from '../plugin.ts';
import { testIds } from './ids.ts';
import type { PersistenceSuiteContext } from './persistence-context.ts';

/**
 * Dashboard accounts (`AccountRepositories`), part of the persistence contract: users (email
 * unique across the service), their one-time tokens and their sessions.
 */
export function persistenceAccountsContract({ store, open }: PersistenceSuiteContext) {
  describe('dashboard accounts', () => {
    const base = Date.now();

    async function organization(name: string) {
      const id = testIds.id('org_');
      await store().organizations.create({ id, name, createdAt: base });
      return id;
    }

    function user(organizationId: string, fields: Partial<StoredUser> = {}): StoredUser {
      return {
        id: testIds.id('usr_'),
        organizationId,
        email: `${testIds.secret(10).toLowerCase()}@example.com`,
        role: 'viewer' as UserRole,
        passwordHash: null,
        passwordSetAt: null,
        activatedAt: null,
        createdAt: base,
        ...fields,
      };
    }

    function token(owner: StoredUser, fields: Partial<UserToken> = {}): UserToken {
      return {
        id: testIds.id('utk_'),
        userId: owner.id,
        organizationId: owner.organizationId,
        purpose: 'set_password',
        tokenHash: hashKey(testIds.secret(32)),
        createdAt: base,
        expiresAt: base + 60_000,
        usedAt: null,
        ...fields,
      };
    }

    function session(owner: StoredUser, fields: Partial<Session> = {}): Session {
      return {
        id: testIds.id('ses_'),
        userId: owner.id,
        organizationId: owner.organizationId,
        tokenHash: hashKey(testIds.secret(32)),
        createdAt: base,
        lastSeenAt: base,
        expiresAt: base + 60_000,
        revokedAt: null,
        userAgent: 'Mozilla/5.0 (contract)',
        ipAddress: '127.0.0.1',
        ...fields,
      };
    }

    it('stores a user and reads it back by id (in its organization) and by email (with the hash)', async () => {
      const org = await organization('Accounts');
      const stored = user(org, {
        role: 'admin',
        passwordHash: 'scrypt$1$1$1$a$b',
        passwordSetAt: base + 1,
        activatedAt: base + 1,
      });
      const { passwordHash: _, ...visible } = stored;
      assert.deepEqual(await store().users.create(stored), visible);
      assert.deepEqual(await store().users.get(org, stored.id), visible);
      assert.deepEqual(await store().users.findByEmail(stored.email), stored);
      assert.equal(await store().users.findByEmail('nobody@example.com'), null);
    });

    it('keeps an email unique across organizations', async () => {
      const first = await organization('Email one');
      const second = await organization('Email two');
      const email = `${testIds.secret(8).toLowerCase()}@example.com`;
      await store().users.create(user(first, { email }));
      await assert.rejects(
        store().users.create(user(second, { email })),
        'the same email in another organization is refused',
      );
      await assert.rejects(store().users.create(user(first, { email })), 'and in the same one');
      assert.equal((await store().users.findByEmail(email))?.organizationId, first);
    });

    it("never returns another organization's user or session, nor changes them", async () => {
      const mine = await organization('Mine');
      const theirs = await organization('Theirs');
      const stranger = user(theirs, { role: 'admin', passwordSetAt: base, activatedAt: base });
      await store().users.create(stranger);
      const strangerSession = session(stranger);
      await store().sessions.create(strangerSession);

      assert.equal(await store().users.get(mine, stranger.id), null);
      assert.deepEqual((await store().users.list(mine, { limit: 10 })).data, []);
      assert.deepEqual(await store().users.list(mine, { limit: 10, startingAfter: stranger.id }), {
        data: [],
        hasMore: false,
      });
      assert.equal(await store().users.setRole(mine, stranger.id, 'viewer'), null);
      assert.equal(await store().users.remove(mine, stranger.id), false);
      assert.equal((await store().users.get(theirs, stranger.id))?.role, 'admin', 'still an admin');

      assert.equal(await store().sessions.get(mine, strangerSession.id), null);
      assert.deepEqual(await store().sessions.listActive(mine, stranger.id, base, 10), []);
      assert.equal(await store().sessions.revoke(mine, strangerSession.id, base), false);
      assert.equal((await store().sessions.get(theirs, strangerSession.id))?.revokedAt, null, 'still active');
      assert.deepEqual(await store().users.pendingInvitations(mine, [stranger.id], base), []);
    });

    it('pages users oldest first: limit, starting_after and has_more cover every user once', async () => {
      const org = await organization('Paged users');
      const users = Array.from({ length: 7 }, (_, n) => user(org, { createdAt: base + Math.floor(n / 2) }));
      for (const each of [...users].reverse()) await store().users.create(each);
      const expected = [...users]
        .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))
        .map((each) => each.id);
      const seen: string[] = [];
      let startingAfter: string | undefined;
      for (let pages = 0; pages < 10; pages++) {
        const page = await store().users.list(org, { limit: 3, startingAfter });
        seen.push(...page.data.map((each) => each.id));
        if (!page.hasMore) break;
        startingAfter = page.data.at(-1)!.id;
      }
      assert.deepEqual(seen, expected);
      assert.ok(
        !('passwordHash' in (await store().users.list(org, { limit: 1 })).data[0]!),
        'a listing carries no hash',
      );
    });

    it('counts admins who have signed in, and changes roles, passwords and activation', async () => {
      const org = await organization('Admins');
      const active = user(org, { role: 'admin', passwordSetAt: base, activatedAt: base });
      const invited = user(org, { role: 'admin' });
      const byLink = user(org, { role: 'admin' });
      const viewer = user(org, { role: 'viewer', passwordSetAt: base, activatedAt: base });
      for (const each of [active, invited, byLink, viewer]) await store().users.create(each);
      assert.equal(await store().users.countActiveAdmins(org), 1);
      assert.equal((await store().users.setRole(org, viewer.id, 'admin'))?.role, 'admin');
      assert.equal(await store().users.countActiveAdmins(org), 2);
      await store().users.setPassword(invited.id, 'scrypt$x', base + 5);
      assert.equal(await store().users.countActiveAdmins(org), 2, 'a password alone does not activate');
      await store().users.markActivated(invited.id, base + 5);
      assert.equal(await store().users.countActiveAdmins(org), 3);
      const found = await store().users.findByEmail(invited.email);
      assert.equal(found?.passwordHash, 'scrypt$x');
      assert.equal(found?.passwordSetAt, base + 5);
      assert.equal(found?.activatedAt, base + 5);
      // A sign-in link's user activates without a password; the first sign-in is the one kept.
      await store().users.markActivated(byLink.id, base + 6);
      await store().users.markActivated(byLink.id, base + 9);
      assert.equal((await store().users.get(org, byLink.id))?.activatedAt, base + 6);
      assert.equal((await store().users.get(org, byLink.id))?.passwordSetAt, null);
      assert.equal(await store().users.countActiveAdmins(org), 4);
      assert.equal(await store().users.countActiveAdmins(await organization('Empty')), 0);
      // Locking the team changes nothing visible.
      await store().transaction((tx) => tx.users.lockTeam(org));
      assert.equal((await store().organizations.get(org))?.name, 'Admins');
    });

    it('finds a token by its hash, used or not, and uses it once however many race', async () => {
      const org = await organization('Tokens');
      const owner = user(org);
      await store().users.create(owner);
      const link = token(owner, { purpose: 'sign_in' });
      await store().users.createToken(link);
      assert.deepEqual(await store().users.findToken(link.tokenHash), link);
      assert.equal(await store().users.findToken(hashKey('unknown')), null);
      await assert.rejects(
        store().users.createToken(token(owner, { tokenHash: link.tokenHash })),
        'token hashes are unique',
      );

      // Two at once, as two browsers opening the same link, through two handles (two processes).
      const outcomes = await Promise.all([
        store().users.useToken(link.id, base + 1),
        open().users.useToken(link.id, base + 2),
      ]);
      assert.deepEqual(outcomes.sort(), [false, true]);
      assert.equal(await store().users.useToken(link.id, base + 3), false, 'and never again');
      const used = await store().users.findToken(link.tokenHash);
      assert.ok(used?.usedAt === base + 1 || used?.usedAt === base + 2);
    });

    it("lists each invited user's newest unused, unexpired set_password token", async () => {
      const org = await organization('Invitations');
      const [a, b, c] = [user(org), user(org), user(org)];
      for (const each of [a, b, c]) await store().users.create(each);
      const older = token(a, { createdAt: base, expiresAt: base + 1000 });
      const newer = token(a, { createdAt: base + 10, expiresAt: base + 2000 });
      const used = token(b, { usedAt: base });
      const expired = token(b, { expiresAt: base + 5 });
      const signIn = token(c, { purpose: 'sign_in' });
      for (const each of [older, newer, used, expired, signIn]) await store().users.createToken(each);
      assert.deepEqual(await store().users.pendingInvitations(org, [a.id, b.id, c.id], base + 5), [newer]);
      assert.deepEqual(await store().users.pendingInvitations(org, [b.id], base), [expired]);
      assert.deepEqual(await store().users.pendingInvitations(org, [], base), []);
    });

    it('removes a user with their tokens and sessions', async () => {
      const org = await organization('Removal');
      const leaving = user(org, { role: 'admin', passwordSetAt: base, activatedAt: base });
      const staying = user(org);
      for (const each of [leaving, staying]) await store().users.create(each);
      const link = token(leaving);
      const theirSession = session(leaving);
      const otherSession = session(staying);
      await store().users.createToken(link);
      await store().sessions.create(theirSession);
      await store().sessions.create(otherSession);

      assert.equal(await store().users.remove(org, leaving.id), true);
      assert.equal(await store().users.remove(org, leaving.id), false, 'once');
      assert.equal(await store().users.get(org, leaving.id), null);
      assert.equal(await store().users.findByEmail(leaving.email), null);
      assert.equal(await store().users.findToken(link.tokenHash), null);
      assert.equal(await store().sessions.findByHash(theirSession.tokenHash), null);
      assert.deepEqual(await store().sessions.findByHash(otherSession.tokenHash), otherSession);
      // The email is free again.
      await store().users.create(user(org, { email: leaving.email }));
    });

    it('stores sessions, lists the active ones newest first, touches and revokes them', async () => {
      const org = await organization('Sessions');
      const owner = user(org);
      await store().users.create(owner);
      const older = session(owner, { createdAt: base, expiresAt: base + 100 });
      const newer = session(owner, { createdAt: base + 1, expiresAt: base + 100, userAgent: null, ipAddress: null });
      const revoked = session(owner, { createdAt: base + 2, revokedAt: base + 3 });
      const expired = session(owner, { createdAt: base + 3, expiresAt: base + 10 });
      for (const each of [older, newer, revoked, expired]) await store().sessions.create(each);

      assert.deepEqual(await store().sessions.findByHash(newer.tokenHash), newer);
      assert.deepEqual(await store().sessions.get(org, revoked.id), revoked, 'get returns revoked sessions too');
      assert.deepEqual(
        await store().sessions.listActive(org, owner.id, base + 10, 10),
        [newer, older],
        'neither revoked nor expired',
      );
      assert.deepEqual(
        await store().sessions.listActive(org, owner.id, base + 10, 1),
        [newer],
        'the newest, `limit` at most',
      );

      await store().sessions.touch(older.id, base + 50);
      assert.equal((await store().sessions.get(org, older.id))?.lastSeenAt, base + 50);

      assert.equal(await store().sessions.revoke(org, older.id, base + 60), true);
      assert.equal(await store().sessions.revoke(org, older.id, base + 70), false, 'once');
      assert.equal(
        (await store().sessions.get(org, older.id))?.revokedAt,
        base + 60,
        'the first revocation time stays',
      );
      assert.equal(await store().sessions.revoke(org, testIds.id('ses_'), base), false);

      assert.equal(
        await store().sessions.revokeAllForUser(owner.id, base + 80),
        2,
        'newer and expired (not yet revoked)',
      );
      assert.deepEqual(await store().sessions.listActive(org, owner.id, base, 10), []);
    });
  });
}
