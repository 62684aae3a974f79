import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '../core/domain/errors.ts';
import { statusByCode } from '../core/http/error-status.ts';
import type { Persistence } from '../core/ports/persistence/index.ts';
import {
  accountService,
  hashPassword,
  invitationLifetimeMs,
  sessionIdleMs,
  sessionLifetimeMs,
  sessionTouchIntervalMs,
  signInLinkLifetimeMs,
  verifyPassword,
  type AccountService,
  type ClientInfo,
} from '../core/services/accounts.ts';
import { tenantService } from '../core/services/tenants.ts';
import { randomIds } from '../plugins/ids-random/index.ts';
import { openPostgres } from '../plugins/store-kysely/postgres.ts';
import { openSqlite } from '../plugins/store-kysely/sqlite.ts';
import { startPostgresTestServer, type PostgresTestServer } from './support/postgres-server.ts';

const client: ClientInfo = { userAgent: 'Mozilla/5.0 (test)', ipAddress: '127.0.0.1' };
const password = 'correct horse battery';
const publicUrl = 'http://127.0.0.1:3999/base';

/** An ApiError of this code. */
const code = (expected: string, status?: number) => (error: unknown) => {
  assert.ok(error instanceof ApiError, `expected an ApiError, got ${error}`);
  assert.equal(error.code, expected);
  if (status !== undefined) assert.equal(statusByCode[error.code], status);
  return true;
};

const tokenOf = (url: string) => new URL(url.replace('#/', '')).searchParams.get('token')!;

let postgres: PostgresTestServer | undefined;
after(async () => postgres?.stop());

const databases: Array<{ name: string; open(): Promise<{ persistence: Persistence; dispose(): void }> }> = [
  {
    name: 'SQLite',
    async open() {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-accounts-'));
      return {
        persistence: openSqlite(path.join(dir, 'accounts.db')),
        dispose: () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'Postgres',
    async open() {
      postgres ??= await startPostgresTestServer();
      return { persistence: openPostgres(await postgres.createDatabase()), dispose: () => {} };
    },
  },
];

for (const database of databases)
  describe(`accounts service (${database.name})`, () => {
    let dispose: () => void;
    let persistence: Persistence;
    let accounts: AccountService;
    let now = Date.UTC(2026, 0, 1);
    const clock = { now: () => now };
    const organization = async (name = 'Team') =>
      (await tenantService({ persistence, ids: randomIds, clock }).createOrganization({ name, credits: 0 }))
        .organization.id;

    before(async () => {
      ({ persistence, dispose } = await database.open());
      await persistence.migrate();
      accounts = accountService({ persistence, ids: randomIds, clock, config: { publicUrl } });
    });
    after(async () => {
      await persistence.close();
      dispose();
    });

    /** A user of `org` who has accepted an invitation, signed in. */
    async function member(org: string, email: string, role: 'admin' | 'viewer' = 'admin') {
      const link = await accounts.invite(org, { email, role });
      return accounts.acceptInvitation({ token: link.token, password }, client);
    }

    it('hashes passwords with scrypt in the documented format, each with its own salt', async () => {
      const hash = await hashPassword(password);
      assert.match(hash, /^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
      assert.notEqual(await hashPassword(password), hash);
      assert.equal(await verifyPassword(password, hash), true);
      assert.equal(await verifyPassword(`${password}!`, hash), false);
      assert.equal(await verifyPassword(password, 'plain'), false);
    });

    it('invites a user with a 7-day link in the fragment; the link sets the password once and signs in', async () => {
      const org = await organization();
      const link = await accounts.invite(org, { email: '  Ada@Example.COM ', role: 'admin' });
      assert.equal(link.user.email, 'ada@example.com');
      assert.equal(link.user.passwordSetAt, null);
      assert.match(link.user.id, /^usr_/);
      assert.equal(link.expiresAt, now + invitationLifetimeMs);
      assert.match(link.token, /^[0-9A-Za-z]{32}$/);
      assert.equal(link.url, `${publicUrl}/dashboard/#/accept-invitation?token=${link.token}`);
      const stored = await persistence.users.findToken(
        (await import('../core/domain/api-keys.ts')).hashKey(link.token),
      );
      assert.equal(stored?.purpose, 'set_password', 'stored as its hash');

      const listed = await accounts.listUsers(org, { limit: 10 });
      assert.deepEqual(
        listed.data.map((user) => [user.email, user.invitationExpiresAt]),
        [['ada@example.com', link.expiresAt]],
      );

      await assert.rejects(
        accounts.acceptInvitation({ token: link.token, password: 'short' }, client),
        code('password_too_short', 400),
      );
      await assert.rejects(
        accounts.acceptInvitation({ token: link.token, password: 'x'.repeat(257) }, client),
        code('password_too_long', 400),
      );

      now += 1000;
      const signedIn = await accounts.acceptInvitation({ token: link.token, password }, client);
      assert.equal(signedIn.user.id, link.user.id);
      assert.equal(signedIn.user.passwordSetAt, now);
      assert.equal(signedIn.organization.id, org);
      assert.match(signedIn.session.id, /^ses_/);
      assert.equal(signedIn.session.expiresAt, now + sessionLifetimeMs);
      assert.equal(signedIn.session.userAgent, client.userAgent);
      assert.equal((await accounts.authenticate(signedIn.token)).user.id, link.user.id);
      assert.equal(
        (await accounts.listUsers(org, { limit: 10 })).data[0]!.invitationExpiresAt,
        null,
        'no longer invited',
      );

      await assert.rejects(
        accounts.acceptInvitation({ token: link.token, password }, client),
        code('invalid_link', 400),
        'once',
      );
      await assert.rejects(
        accounts.invite(org, { email: 'ada@example.com', role: 'viewer' }),
        code('email_taken', 409),
      );
    });

    it('accepts an invitation once when two browsers race with the same link', async () => {
      const org = await organization();
      const link = await accounts.invite(org, { email: 'race@example.com', role: 'viewer' });
      const outcomes = await Promise.allSettled([
        accounts.acceptInvitation({ token: link.token, password }, client),
        accounts.acceptInvitation({ token: link.token, password: 'another password' }, client),
      ]);
      assert.deepEqual(outcomes.map((outcome) => outcome.status).sort(), ['fulfilled', 'rejected']);
      const failed = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
      assert.ok(code('invalid_link')(failed.reason));
    });

    it('refuses unknown, expired and foreign-purpose links with one error', async () => {
      const org = await organization();
      await assert.rejects(
        accounts.acceptInvitation({ token: 'x'.repeat(32), password }, client),
        code('invalid_link'),
      );
      const link = await accounts.invite(org, { email: 'late@example.com', role: 'viewer' });
      now += invitationLifetimeMs;
      await assert.rejects(
        accounts.acceptInvitation({ token: link.token, password }, client),
        code('invalid_link'),
        'expired',
      );
      assert.equal((await accounts.listUsers(org, { limit: 10 })).data[0]!.invitationExpiresAt, null);
      const admin = await accounts.ensureAdmin(org, 'late-admin@example.com');
      const signInLink = await accounts.issueSignInLink(org, admin.id);
      await assert.rejects(
        accounts.acceptInvitation({ token: signInLink.token, password }, client),
        code('invalid_link'),
        'a sign-in link sets no password',
      );
      await assert.rejects(
        accounts.redeemSignInLink(link.token, client),
        code('invalid_link'),
        'an invitation signs nobody in without a password',
      );
    });

    it('re-inviting issues a fresh link; using any one voids the others', async () => {
      const org = await organization();
      const first = await accounts.invite(org, { email: 'twice@example.com', role: 'viewer' });
      now += 10;
      const second = await accounts.invite(org, { email: 'twice@example.com', role: 'admin' });
      assert.equal(second.user.id, first.user.id);
      assert.equal(second.user.role, 'admin', 'the latest invitation sets the role');
      assert.notEqual(second.token, first.token);
      assert.equal(
        (await accounts.listUsers(org, { limit: 10 })).data[0]!.invitationExpiresAt,
        second.expiresAt,
        'the newest link is listed',
      );
      now += 10;
      await accounts.acceptInvitation({ token: first.token, password }, client);
      await assert.rejects(
        accounts.acceptInvitation({ token: second.token, password: 'a password of mine' }, client),
        code('invalid_link'),
      );
    });

    it('keeps an email to one organization', async () => {
      const [one, two] = [await organization('One'), await organization('Two')];
      await accounts.invite(one, { email: 'owned@example.com', role: 'viewer' });
      await assert.rejects(
        accounts.invite(two, { email: 'OWNED@example.com', role: 'viewer' }),
        code('email_taken', 409),
      );
      await assert.rejects(accounts.ensureAdmin(two, 'owned@example.com'), code('email_taken', 409));
      await assert.rejects(accounts.invite(one, { email: 'not an email', role: 'viewer' }), code('invalid_email', 400));
      await assert.rejects(
        accounts.invite(one, { email: 'role@example.com', role: 'owner' as 'admin' }),
        code('invalid_role', 400),
      );
      await assert.rejects(
        accounts.invite('org_000000000000000000000000', { email: 'x@example.com', role: 'viewer' }),
        code('resource_missing', 404),
      );
      // Two invitations of one new address at once: one user, two links.
      const both = await Promise.all([
        accounts.invite(one, { email: 'twin@example.com', role: 'viewer' }),
        accounts.invite(one, { email: 'twin@example.com', role: 'viewer' }),
      ]);
      assert.equal(both[0].user.id, both[1].user.id);
    });

    it('gives the same answer for an unknown email, a user without a password and a wrong password', async () => {
      const org = await organization();
      const signedIn = await member(org, 'known@example.com');
      await accounts.invite(org, { email: 'invited@example.com', role: 'viewer' });
      const failures = [
        { email: 'nobody@example.com', password },
        { email: 'invited@example.com', password },
        { email: 'known@example.com', password: 'wrong password' },
        { email: 'known@example.com', password: 'x'.repeat(10_000) },
      ];
      const messages = new Set<string>();
      for (const input of failures) {
        const started = performance.now();
        const error = await accounts.signIn(input, client).catch((caught: unknown) => caught);
        const took = performance.now() - started;
        assert.ok(code('invalid_credentials', 401)(error));
        messages.add((error as ApiError).message);
        assert.ok(took > 5, `${input.email}: ${took.toFixed(1)} ms is too quick to have run scrypt`);
      }
      assert.deepEqual([...messages], ['Incorrect email or password.']);
      const again = await accounts.signIn({ email: ' KNOWN@example.com', password }, client);
      assert.equal(again.user.id, signedIn.user.id);
      assert.notEqual(again.token, signedIn.token);
    });

    it('signs in with a sign-in link once, within 15 minutes', async () => {
      const org = await organization();
      const admin = await accounts.ensureAdmin(org, 'Dev@Example.com');
      assert.equal(admin.role, 'admin');
      assert.equal(admin.email, 'dev@example.com');
      assert.deepEqual(await accounts.ensureAdmin(org, 'dev@example.com'), admin, 'ensuring twice keeps the one user');

      const link = await accounts.issueSignInLink(org, admin.id);
      assert.equal(link.url, `${publicUrl}/dashboard/#/sign-in-link?token=${link.token}`);
      assert.equal(link.expiresAt, now + signInLinkLifetimeMs);
      const signedIn = await accounts.redeemSignInLink(tokenOf(link.url), client);
      assert.equal(signedIn.user.id, admin.id);
      assert.equal(signedIn.organization.id, org);
      await assert.rejects(accounts.redeemSignInLink(link.token, client), code('invalid_link'), 'once');

      const late = await accounts.issueSignInLink(org, admin.id);
      now += signInLinkLifetimeMs - 1;
      const onTime = await accounts.issueSignInLink(org, admin.id);
      now += 1;
      await assert.rejects(accounts.redeemSignInLink(late.token, client), code('invalid_link'), 'after 15 minutes');
      await accounts.redeemSignInLink(onTime.token, client);

      const other = await organization('Other');
      await assert.rejects(
        accounts.issueSignInLink(other, admin.id),
        code('resource_missing', 404),
        "not for another organization's user",
      );
    });

    it('ends a session when revoked, signed out, idle for 7 days or 30 days after sign-in', async () => {
      const org = await organization();
      const { token, session } = await member(org, 'sessions@example.com');
      await assert.rejects(accounts.authenticate('nope'), code('session_expired', 401));
      await assert.rejects(accounts.authenticate(''), code('session_expired', 401));

      // Touched at most once a minute.
      now += sessionTouchIntervalMs - 1;
      assert.equal((await accounts.authenticate(token)).session.lastSeenAt, session.lastSeenAt);
      now += 1;
      assert.equal((await accounts.authenticate(token)).session.lastSeenAt, now);
      assert.equal((await persistence.sessions.get(org, session.id))?.lastSeenAt, now);

      // Used every 6 days, it lives 30 days, not a millisecond more.
      while (now + 6 * 24 * 3600_000 < session.createdAt + sessionLifetimeMs) {
        now += 6 * 24 * 3600_000;
        await accounts.authenticate(token);
      }
      now = session.expiresAt - 1;
      await accounts.authenticate(token);
      now = session.expiresAt;
      await assert.rejects(accounts.authenticate(token), code('session_expired'), 'absolute expiry');

      const idle = await accounts.signIn({ email: 'sessions@example.com', password }, client);
      now += sessionIdleMs - 1;
      await accounts.authenticate(idle.token);
      now += sessionIdleMs;
      await assert.rejects(accounts.authenticate(idle.token), code('session_expired'), 'idle for 7 days');
      assert.deepEqual(
        (await accounts.listSessions(org, idle.user, idle.user.id)).data,
        [],
        'ended sessions are not listed',
      );

      const [a, b] = [
        await accounts.signIn({ email: 'sessions@example.com', password }, client),
        await accounts.signIn({ email: 'sessions@example.com', password }, client),
      ];
      assert.deepEqual(
        (await accounts.listSessions(org, a.user, a.user.id)).data.map((each) => each.id).sort(),
        [a.session.id, b.session.id].sort(),
      );
      await accounts.signOut(a.session);
      await assert.rejects(accounts.authenticate(a.token), code('session_expired'), 'signed out');
      await accounts.revokeSession(org, b.user, b.session.id);
      await assert.rejects(accounts.authenticate(b.token), code('session_expired'), 'revoked');
      await assert.rejects(
        accounts.revokeSession(org, b.user, b.session.id),
        code('resource_missing', 404),
        'revoked already',
      );
      const other = await organization('Other');
      const c = await accounts.signIn({ email: 'sessions@example.com', password }, client);
      await assert.rejects(
        accounts.revokeSession(other, c.user, c.session.id),
        code('resource_missing', 404),
        "not another organization's session",
      );
      await accounts.authenticate(c.token);
    });

    it("ends the user's other sessions when the password is set", async () => {
      const org = await organization();
      const invitation = await accounts.invite(org, { email: 'linked@example.com', role: 'viewer' });
      const before = await accounts.redeemSignInLink(
        (await accounts.issueSignInLink(org, invitation.user.id)).token,
        client,
      );
      await accounts.authenticate(before.token);
      now += 10;
      const after = await accounts.acceptInvitation({ token: invitation.token, password }, client);
      await assert.rejects(accounts.authenticate(before.token), code('session_expired'));
      assert.deepEqual(
        (await accounts.listSessions(org, after.user, after.user.id)).data.map((session) => session.id),
        [after.session.id],
      );
    });

    it('never leaves an organization without an active admin', async () => {
      const org = await organization();
      const owner = (await member(org, 'owner@example.com')).user;
      const viewer = (await member(org, 'viewer@example.com', 'viewer')).user;
      const invitedAdmin = (await accounts.invite(org, { email: 'pending@example.com', role: 'admin' })).user;

      await assert.rejects(accounts.setRole(org, owner, owner.id, 'viewer'), code('last_admin', 409));
      await assert.rejects(accounts.removeUser(org, owner, owner.id), code('last_admin', 409));
      await assert.rejects(
        accounts.setRole(org, viewer, owner.id, 'viewer'),
        code('insufficient_role', 403),
        'a viewer manages nobody',
      );
      const stranger = (await member(await organization('Stranger'), 'stranger@example.com')).user;
      await assert.rejects(accounts.setRole(org, stranger, viewer.id, 'admin'), code('insufficient_role', 403));
      await assert.rejects(accounts.setRole(org, owner, stranger.id, 'viewer'), code('resource_missing', 404));

      // An invited admin does not count, and can be removed.
      await accounts.removeUser(org, owner, invitedAdmin.id);
      assert.equal((await accounts.setRole(org, owner, viewer.id, 'admin')).role, 'admin');
      assert.equal((await accounts.setRole(org, owner, owner.id, 'viewer')).role, 'viewer', 'another admin remains');
      await assert.rejects(
        accounts.removeUser(org, viewer, viewer.id),
        code('insufficient_role', 403),
        'the old owner is a viewer now',
      );
      const promoted = (await persistence.users.get(org, viewer.id))!;
      await assert.rejects(accounts.removeUser(org, promoted, promoted.id), code('last_admin', 409));
      assert.equal(await persistence.users.countActiveAdmins(org), 1, 'the refused change was rolled back');

      // Removing a user ends their sessions.
      const leaving = await member(org, 'leaving@example.com', 'viewer');
      await accounts.removeUser(org, promoted, leaving.user.id);
      await assert.rejects(accounts.authenticate(leaving.token), code('session_expired'));
      await assert.rejects(accounts.removeUser(org, promoted, leaving.user.id), code('resource_missing', 404));
      const page = await accounts.listUsers(org, { limit: 10 });
      assert.deepEqual(
        page.data.map((user) => [user.email, user.role]),
        [
          ['owner@example.com', 'viewer'],
          ['viewer@example.com', 'admin'],
        ],
      );
    });

    it('counts an admin who signs in by link alone (the development admin) as the last admin', async () => {
      const org = await organization('Development');
      const developer = await accounts.ensureAdmin(org, 'admin@development.localhost');
      assert.equal(developer.activatedAt, null, 'not activated before the first sign-in');
      assert.equal((await accounts.listUsers(org, { limit: 10 })).data[0]?.activatedAt, null);

      const link = await accounts.issueSignInLink(org, developer.id);
      now += 1000;
      const signedIn = await accounts.redeemSignInLink(tokenOf(link.url), client);
      assert.equal(signedIn.user.activatedAt, now);
      assert.equal(signedIn.user.passwordSetAt, null, 'never set a password');
      const { user: me } = await accounts.authenticate(signedIn.token);
      assert.equal(me.activatedAt, now);

      await assert.rejects(accounts.setRole(org, me, me.id, 'viewer'), code('last_admin', 409));
      await assert.rejects(accounts.removeUser(org, me, me.id), code('last_admin', 409));
      assert.equal((await persistence.users.get(org, me.id))?.role, 'admin', 'still an admin');
      assert.equal(await persistence.users.countActiveAdmins(org), 1);

      // A later link keeps the first sign-in's time; an invitation to the address is refused.
      const again = await accounts.issueSignInLink(org, developer.id);
      now += 1000;
      await accounts.redeemSignInLink(tokenOf(again.url), client);
      assert.equal((await persistence.users.get(org, me.id))?.activatedAt, now - 1000);
      await assert.rejects(
        accounts.invite(org, { email: 'admin@development.localhost', role: 'viewer' }),
        code('email_taken', 409),
      );

      // With another admin who has signed in, the development admin may step down.
      const colleague = (await member(org, 'colleague@example.com')).user;
      assert.equal((await accounts.setRole(org, me, me.id, 'viewer')).role, 'viewer');
      await assert.rejects(accounts.removeUser(org, colleague, colleague.id), code('last_admin', 409));
    });

    it('a password sign-in activates a user whose password an older release set', async () => {
      const org = await organization('Older release');
      const user = await accounts.ensureAdmin(org, 'older@example.com');
      await persistence.users.setPassword(user.id, await hashPassword(password), now);
      assert.equal((await persistence.users.get(org, user.id))?.activatedAt, null);
      now += 1000;
      const signedIn = await accounts.signIn({ email: 'older@example.com', password }, client);
      assert.equal(signedIn.user.activatedAt, now);
      assert.equal((await persistence.users.get(org, user.id))?.activatedAt, now);
      await assert.rejects(accounts.setRole(org, signedIn.user, user.id, 'viewer'), code('last_admin', 409));
    });

    it('keeps one admin when the last two demote or remove each other at the same instant', async () => {
      for (const race of ['demote', 'remove'] as const) {
        const org = await organization(`Race ${race}`);
        const a = (await member(org, `a-${race}@example.com`)).user;
        const b = (await member(org, `b-${race}@example.com`)).user;
        const change = (actor: typeof a, target: typeof a) =>
          race === 'demote'
            ? accounts.setRole(org, actor, target.id, 'viewer')
            : accounts.removeUser(org, actor, target.id);
        const outcomes = await Promise.allSettled([change(a, b), change(b, a)]);
        assert.deepEqual(outcomes.map((outcome) => outcome.status).sort(), ['fulfilled', 'rejected'], race);
        assert.ok(
          code('last_admin')(
            (outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult).reason,
          ),
        );
        assert.equal(await persistence.users.countActiveAdmins(org), 1, race);
      }
    });
  });
