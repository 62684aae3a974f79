import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, startTestApp, type TestApp } from './support/app.ts';
import { databaseMatrix, errorOf } from './support/databases.ts';
import {
  cookieOf,
  freshAddress,
  invitedSession,
  jsonPost,
  sessionFrom,
  signIn,
  type TestSession,
} from './support/sessions.ts';

const password = 'a long enough password';
const day = 86_400_000;

const matrix = databaseMatrix();
after(() => matrix.stop());

/** The attributes of a Set-Cookie header, lower-cased names. */
function cookieAttributes(response: Response) {
  const [, ...parts] = response.headers
    .get('set-cookie')!
    .split(';')
    .map((part) => part.trim());
  return new Map(parts.map((part) => [part.split('=')[0]!.toLowerCase(), part.split('=')[1] ?? true] as const));
}

for (const [database, environment] of matrix.databases) {
  describe(`dashboard sessions on ${database}`, () => {
    let app: TestApp;
    let organizationId: string;
    let apiKey: string;
    let admin: TestSession;
    const get = (path: string, headers: Record<string, string>) => fetch(`${app.url}${path}`, { headers });

    before(async () => {
      app = await startTestApp({
        env: await environment(),
        // Small sign-in budgets so the limits are reached quickly; addresses come from X-Forwarded-For so tests keep theirs apart.
        config: {
          trustProxy: true,
          accounts: {
            signInPerAccount: { perSecond: 0.001, burst: 3 },
            signInPerAddress: { perSecond: 0.001, burst: 5 },
          },
        },
      });
      const created = await app.tenants.createOrganization({ name: 'Sessions', credits: 0 });
      organizationId = created.organization.id;
      apiKey = created.apiKey.key;
      admin = await invitedSession(app, organizationId, 'admin', 'admin@sessions.example', password);
    });
    after(() => app.close());

    it('signs in with email and password: an HttpOnly, SameSite=Lax cookie on the whole service, not Secure over http', async () => {
      const response = await signIn(app, ' Admin@Sessions.example ', password);
      const attributes = cookieAttributes(response);
      const session = await sessionFrom(response, 'admin@sessions.example');
      assert.match(session.cookie, /^visualizer_session=[0-9A-Za-z]{32}$/);
      assert.equal(attributes.get('httponly'), true);
      assert.equal(attributes.get('samesite'), 'Lax');
      assert.equal(attributes.get('path'), '/');
      assert.equal(attributes.has('secure'), false, 'the public URL is http');
      const maxAge = Number(attributes.get('max-age'));
      assert.ok(Math.abs(maxAge - (30 * day) / 1000) < 60, `Max-Age ${maxAge} is the session's absolute lifetime`);
      assert.equal(response.headers.get('cache-control'), 'no-store');

      const current = await (await get('/v1/session', { cookie: session.cookie })).json();
      assert.equal(current.object, 'session');
      assert.equal(current.id, session.sessionId);
      assert.deepEqual(current.organization, { id: organizationId, name: 'Sessions' });
      assert.deepEqual(
        { ...current.user, id: undefined, createdAt: undefined },
        {
          id: undefined,
          object: 'user',
          email: 'admin@sessions.example',
          role: 'admin',
          status: 'active',
          invitationExpiresAt: null,
          createdAt: undefined,
        },
      );
      assert.equal(current.csrfToken, session.csrfToken);
      assert.match(current.csrfToken, /^[A-Za-z0-9_-]{43}$/);
      assert.equal(Date.parse(current.expiresAt) - Date.parse(current.createdAt), 30 * day);

      // The session works on the existing /v1 routes, as a secret key does.
      const stores = await (await get('/v1/stores', { cookie: session.cookie })).json();
      assert.equal(stores.data.length, 1);
    });

    it('marks the cookie Secure and scopes it to the path when the public URL is https under a prefix', async () => {
      const secure = await startTestApp({
        env: { ...(await environment()), VISUALIZER_PUBLIC_URL: 'https://visualizer.example/base' },
      });
      try {
        const { organization } = await secure.tenants.createOrganization({ name: 'Secure', credits: 0 });
        const link = await secure.container.cradle.accounts.invite(organization.id, {
          email: 'secure@sessions.example',
          role: 'admin',
        });
        const response = await fetch(`${secure.url}/v1/invitations/accept`, jsonPost({ token: link.token, password }));
        const attributes = cookieAttributes(response);
        assert.equal(response.status, 200);
        assert.equal(attributes.get('secure'), true);
        assert.equal(attributes.get('path'), '/base');
        assert.equal(attributes.get('httponly'), true);
        assert.equal(attributes.get('samesite'), 'Lax');
        assert.match(link.url, /^https:\/\/visualizer\.example\/base\/dashboard\/#\/accept-invitation\?token=/);
      } finally {
        await secure.close();
      }
    });

    it('answers an unknown account, a wrong password and an invited user without password alike', async () => {
      await app.container.cradle.accounts.invite(organizationId, { email: 'pending@sessions.example', role: 'viewer' });
      const answers = [];
      for (const [email, tried] of [
        ['nobody@sessions.example', password],
        ['admin@sessions.example', 'wrong password!'],
        ['pending@sessions.example', password],
      ] as const) {
        const response = await signIn(app, email, tried);
        assert.equal(response.headers.get('set-cookie'), null);
        answers.push({ status: response.status, body: await response.json() });
      }
      assert.deepEqual(answers[0], {
        status: 401,
        body: {
          error: {
            type: 'authentication_error',
            code: 'invalid_credentials',
            message: 'Incorrect email or password.',
            param: null,
          },
        },
      });
      assert.deepEqual(answers[1], answers[0]);
      assert.deepEqual(answers[2], answers[0]);
    });

    it('limits sign-in attempts per account, from any address, and per address, for any account (429 with Retry-After)', async () => {
      await invitedSession(app, organizationId, 'viewer', 'limited@sessions.example', password);
      for (let attempt = 0; attempt < 3; attempt++)
        assert.equal((await signIn(app, 'limited@sessions.example', 'wrong password!')).status, 401);
      const limited = await signIn(app, 'limited@sessions.example', password);
      assert.equal((await errorOf(limited, 429)).code, 'rate_limited');
      assert.ok(Number(limited.headers.get('retry-after')) >= 1);
      // Another account is not held up by this one's budget.
      await invitedSession(app, organizationId, 'viewer', 'other@sessions.example', password);
      assert.equal((await signIn(app, 'other@sessions.example', password)).status, 200);

      const address = freshAddress();
      for (let attempt = 0; attempt < 5; attempt++) {
        assert.equal(
          (await signIn(app, `guess-${attempt}@sessions.example`, password, { 'x-forwarded-for': address })).status,
          401,
        );
      }
      const fromAddress = await signIn(app, 'other@sessions.example', password, { 'x-forwarded-for': address });
      const error = await errorOf(fromAddress, 429);
      assert.equal(error.code, 'rate_limited');
      assert.match(error.message, /address/);
    });

    it('needs the CSRF header on changes made with the cookie, and refuses a page of another origin', async () => {
      const body = { name: 'From the dashboard' };
      const post = (headers: Record<string, string>) => fetch(`${app.url}/v1/stores`, jsonPost(body, headers));
      const missing = await errorOf(await post({ cookie: admin.cookie }), 403);
      assert.deepEqual([missing.type, missing.code], ['authorization_error', 'csrf_token_invalid']);
      assert.equal(
        (await errorOf(await post({ cookie: admin.cookie, 'x-csrf-token': 'not-the-token' }), 403)).code,
        'csrf_token_invalid',
      );
      const otherSession = await invitedSession(app, organizationId, 'admin');
      assert.equal(
        (await errorOf(await post({ cookie: admin.cookie, 'x-csrf-token': otherSession.csrfToken }), 403)).code,
        'csrf_token_invalid',
        "another session's token",
      );
      assert.equal(
        (await errorOf(await post(admin.headers({ origin: 'https://evil.example' })), 403)).code,
        'csrf_token_invalid',
      );
      assert.equal(
        (
          await errorOf(
            await fetch(
              `${app.url}/v1/session`,
              jsonPost({ email: 'admin@sessions.example', password }, { origin: 'https://evil.example' }),
            ),
            403,
          )
        ).code,
        'csrf_token_invalid',
        'no login CSRF either',
      );
      const sameOrigin = await post(admin.headers({ origin: new URL(app.container.cradle.config.publicUrl).origin }));
      assert.equal(sameOrigin.status, 201);
      assert.equal((await post(admin.headers())).status, 201);
      // An Authorization header wins over the cookie: a server with a key needs no CSRF token.
      assert.equal((await post({ ...bearer(apiKey), cookie: admin.cookie })).status, 201);
      // Reads need no token.
      assert.equal((await get('/v1/stores', { cookie: admin.cookie })).status, 200);
    });

    it('signs out: the cookie is cleared and no longer works', async () => {
      const session = await sessionFrom(
        await signIn(app, 'other@sessions.example', password),
        'other@sessions.example',
      );
      assert.equal(
        (
          await errorOf(
            await fetch(`${app.url}/v1/session`, { method: 'DELETE', headers: { cookie: session.cookie } }),
            403,
          )
        ).code,
        'csrf_token_invalid',
      );
      const out = await fetch(`${app.url}/v1/session`, { method: 'DELETE', headers: session.headers() });
      assert.equal(out.status, 204);
      assert.equal(cookieOf(out), 'visualizer_session=');
      assert.equal(cookieAttributes(out).get('max-age'), '0');
      assert.equal((await errorOf(await get('/v1/session', { cookie: session.cookie }), 401)).code, 'session_expired');
      assert.equal((await errorOf(await get('/v1/stores', { cookie: session.cookie }), 401)).code, 'session_expired');
      assert.equal((await errorOf(await get('/v1/session', {}), 401)).code, 'not_signed_in');
      assert.equal((await errorOf(await get('/v1/stores', {}), 401)).code, 'missing_api_key');
    });

    it('accepts an invitation once, and checks the password', async () => {
      const link = await app.container.cradle.accounts.invite(organizationId, {
        email: 'once@sessions.example',
        role: 'viewer',
      });
      const accept = (body: unknown) =>
        fetch(`${app.url}/v1/invitations/accept`, jsonPost(body, { 'x-forwarded-for': freshAddress() }));
      const short = await errorOf(await accept({ token: link.token, password: 'short' }), 400);
      assert.deepEqual([short.code, short.param], ['password_too_short', 'password']);
      const session = await sessionFrom(await accept({ token: link.token, password }), 'once@sessions.example');
      assert.equal((await get('/v1/session', { cookie: session.cookie })).status, 200);
      assert.equal(
        (await errorOf(await accept({ token: link.token, password: 'another long password' }), 400)).code,
        'invalid_link',
      );
      assert.equal((await errorOf(await accept({ token: 'x'.repeat(32), password }), 400)).code, 'invalid_link');
      assert.equal((await errorOf(await accept({ token: link.token }), 400)).code, 'parameter_invalid');
      assert.equal((await signIn(app, 'once@sessions.example', password)).status, 200);
    });

    it('signs in once with a sign-in link', async () => {
      const link = await app.container.cradle.accounts.issueSignInLink(organizationId, admin.userId);
      const first = await fetch(
        `${app.url}/v1/session`,
        jsonPost({ token: link.token }, { 'x-forwarded-for': freshAddress() }),
      );
      const session = await sessionFrom(first, admin.email);
      assert.equal(session.userId, admin.userId);
      const again = await fetch(
        `${app.url}/v1/session`,
        jsonPost({ token: link.token }, { 'x-forwarded-for': freshAddress() }),
      );
      assert.equal((await errorOf(again, 400)).code, 'invalid_link');
    });

    it('keeps the development admin, who signs in by link alone, as active and as the last admin', async () => {
      const { accounts } = app.container.cradle;
      const development = (await app.tenants.createOrganization({ name: 'Development', credits: 0 })).organization.id;
      const developer = await accounts.ensureAdmin(development, 'admin@development.localhost');
      const link = await accounts.issueSignInLink(development, developer.id);
      const me = await sessionFrom(
        await fetch(`${app.url}/v1/session`, jsonPost({ token: link.token }, { 'x-forwarded-for': freshAddress() })),
        developer.email,
      );
      assert.equal((await (await get('/v1/session', { cookie: me.cookie })).json()).user.status, 'active');
      const team = await (await get('/v1/users', { cookie: me.cookie })).json();
      assert.deepEqual(
        team.data.map((user: { email: string; status: string }) => [user.email, user.status]),
        [['admin@development.localhost', 'active']],
      );

      const demoted = await fetch(`${app.url}/v1/users/${me.userId}`, {
        method: 'PATCH',
        headers: me.headers({ 'content-type': 'application/json' }),
        body: JSON.stringify({ role: 'viewer' }),
      });
      const refused = await errorOf(demoted, 409);
      assert.equal(refused.code, 'last_admin');
      assert.match(refused.message, /at least one admin who can sign in/);
      const removed = await fetch(`${app.url}/v1/users/${me.userId}`, { method: 'DELETE', headers: me.headers() });
      assert.equal((await errorOf(removed, 409)).code, 'last_admin');
      assert.equal((await (await get('/v1/session', { cookie: me.cookie })).json()).user.role, 'admin');
    });

    it("lists a user's sessions and revokes one: its cookie stops working", async () => {
      const email = 'devices@sessions.example';
      const laptop = await invitedSession(app, organizationId, 'viewer', email, password);
      const phone = await sessionFrom(await signIn(app, email, password, { 'user-agent': 'Phone browser' }), email);
      const listed = await (await get('/v1/sessions', { cookie: laptop.cookie })).json();
      assert.equal(listed.object, 'list');
      assert.deepEqual(
        listed.data.map((session: { id: string; current: boolean }) => [session.id, session.current]),
        [
          [phone.sessionId, false],
          [laptop.sessionId, true],
        ],
      );
      assert.equal(listed.data[0].userAgent, 'Phone browser');
      assert.ok(listed.data[0].ipAddress);
      // A viewer may not look at others' sessions, nor revoke them.
      assert.equal(
        (await errorOf(await get(`/v1/sessions?userId=${admin.userId}`, { cookie: laptop.cookie }), 403)).code,
        'insufficient_role',
      );
      assert.equal(
        (
          await errorOf(
            await fetch(`${app.url}/v1/sessions/${admin.sessionId}`, { method: 'DELETE', headers: laptop.headers() }),
            404,
          )
        ).code,
        'resource_missing',
      );
      // An admin may.
      const forAdmin = await (await get(`/v1/sessions?userId=${laptop.userId}`, { cookie: admin.cookie })).json();
      assert.deepEqual(
        forAdmin.data.map((session: { id: string }) => session.id).sort(),
        [laptop.sessionId, phone.sessionId].sort(),
      );

      const revoked = await fetch(`${app.url}/v1/sessions/${phone.sessionId}`, {
        method: 'DELETE',
        headers: laptop.headers(),
      });
      assert.equal(revoked.status, 204);
      assert.equal((await errorOf(await get('/v1/session', { cookie: phone.cookie }), 401)).code, 'session_expired');
      assert.equal((await get('/v1/session', { cookie: laptop.cookie })).status, 200);
      const after = await (await get('/v1/sessions', { cookie: laptop.cookie })).json();
      assert.deepEqual(
        after.data.map((session: { id: string }) => session.id),
        [laptop.sessionId],
      );
      assert.equal(
        (
          await errorOf(
            await fetch(`${app.url}/v1/sessions/${phone.sessionId}`, { method: 'DELETE', headers: laptop.headers() }),
            404,
          )
        ).code,
        'resource_missing',
      );
    });

    it('manages API keys from an admin session: created with the key shown once, listed, revoked, and the key then refused', async () => {
      const created = await fetch(
        `${app.url}/v1/api-keys`,
        jsonPost({ kind: 'secret', name: 'production' }, admin.headers()),
      );
      assert.equal(created.status, 201);
      const key = await created.json();
      assert.match(key.key, /^visualizer_[0-9A-Za-z]{32}$/);
      assert.equal(key.displayPrefix, key.key.slice(0, 15));
      assert.equal((await get('/v1/stores', bearer(key.key))).status, 200, 'the new key works');
      const list = await (await get('/v1/api-keys?kind=secret&limit=1', { cookie: admin.cookie })).json();
      assert.deepEqual(Object.keys(list.data[0]).sort(), [
        'createdAt',
        'displayPrefix',
        'id',
        'kind',
        'lastUsedAt',
        'name',
        'object',
        'revokedAt',
      ]);
      assert.equal(list.data[0].id, key.id, 'newest first');
      assert.equal(list.has_more, true, 'the default key is on the next page');
      const rest = await (
        await get(`/v1/api-keys?kind=secret&starting_after=${key.id}`, { cookie: admin.cookie })
      ).json();
      assert.deepEqual([rest.data.length, rest.has_more, rest.data[0].kind], [1, false, 'secret']);
      assert.ok(!JSON.stringify(rest).includes(apiKey.slice(15)), 'no key itself is listed');
      const revoked = await (
        await fetch(`${app.url}/v1/api-keys/${key.id}`, { method: 'DELETE', headers: admin.headers() })
      ).json();
      assert.ok(revoked.revokedAt);
      assert.equal((await errorOf(await get('/v1/stores', bearer(key.key)), 401)).code, 'api_key_revoked');
      // A secret key cannot manage keys, however valid.
      assert.equal(
        (await errorOf(await fetch(`${app.url}/v1/api-keys`, jsonPost({ kind: 'secret' }, bearer(apiKey))), 403)).code,
        'session_required',
      );
    });

    it('invites, lists, changes and removes users from an admin session, and keeps an admin', async () => {
      const invited = await fetch(
        `${app.url}/v1/invitations`,
        jsonPost({ email: 'New.Person@sessions.example', role: 'viewer' }, admin.headers()),
      );
      assert.equal(invited.status, 201);
      const invitation = await invited.json();
      assert.equal(invitation.email, 'new.person@sessions.example');
      assert.match(invitation.url, /\/dashboard\/#\/accept-invitation\?token=[0-9A-Za-z]{32}$/);
      assert.equal(
        (
          await errorOf(
            await fetch(
              `${app.url}/v1/invitations`,
              jsonPost({ email: 'admin@sessions.example', role: 'viewer' }, admin.headers()),
            ),
            409,
          )
        ).code,
        'email_taken',
      );
      assert.equal(
        (
          await errorOf(
            await fetch(
              `${app.url}/v1/invitations`,
              jsonPost({ email: 'not an address', role: 'viewer' }, admin.headers()),
            ),
            400,
          )
        ).param,
        'email',
      );

      const users = [];
      for (let startingAfter = ''; ; ) {
        const page = await (await get(`/v1/users?limit=2${startingAfter}`, { cookie: admin.cookie })).json();
        users.push(...page.data);
        if (!page.has_more) break;
        startingAfter = `&starting_after=${page.data.at(-1).id}`;
      }
      const newcomer = users.find((user) => user.id === invitation.userId);
      assert.equal(newcomer.status, 'invited');
      assert.equal(newcomer.invitationExpiresAt, invitation.expiresAt);
      assert.equal(users[0].email, 'admin@sessions.example', 'oldest first');

      const patch = (id: string, role: string) =>
        fetch(`${app.url}/v1/users/${id}`, {
          method: 'PATCH',
          headers: admin.headers({ 'content-type': 'application/json' }),
          body: JSON.stringify({ role }),
        });
      assert.equal((await (await patch(invitation.userId, 'admin')).json()).role, 'admin');
      assert.equal((await errorOf(await patch(invitation.userId, 'owner'), 400)).code, 'parameter_invalid');
      const removed = await (
        await fetch(`${app.url}/v1/users/${invitation.userId}`, { method: 'DELETE', headers: admin.headers() })
      ).json();
      assert.deepEqual(removed, { id: invitation.userId, object: 'user', deleted: true });

      // Alone among active admins? Other admins were made by earlier tests: demote them, then the last one is kept.
      const admins = users.filter(
        (user) => user.role === 'admin' && user.status === 'active' && user.id !== admin.userId,
      );
      for (const other of admins) assert.equal((await patch(other.id, 'viewer')).status, 200);
      assert.equal((await errorOf(await patch(admin.userId, 'viewer'), 409)).code, 'last_admin');
      assert.equal(
        (
          await errorOf(
            await fetch(`${app.url}/v1/users/${admin.userId}`, { method: 'DELETE', headers: admin.headers() }),
            409,
          )
        ).code,
        'last_admin',
      );
    });

    it('updates a widget with a secret key or an admin session (PATCH /v1/widgets/:id)', async () => {
      const store = (await app.tenants.listStores(organizationId))[0]!;
      const created = await (
        await fetch(
          `${app.url}/v1/widgets`,
          jsonPost(
            { storeId: store.id, mode: 'virtual-try-on', imageSize: '1K', allowedOrigins: ['https://shop.example'] },
            bearer(apiKey),
          ),
        )
      ).json();
      const patch = (body: unknown, headers: Record<string, string>) =>
        fetch(`${app.url}/v1/widgets/${created.id}`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        });
      const byKey = await (
        await patch(
          { dailyGenerationCap: 7, allowedOrigins: ['HTTPS://Shop.Example:443/', 'https://www.shop.example'] },
          bearer(apiKey),
        )
      ).json();
      assert.deepEqual(
        { ...byKey, createdAt: undefined },
        {
          ...created,
          createdAt: undefined,
          dailyGenerationCap: 7,
          allowedOrigins: ['https://shop.example', 'https://www.shop.example'],
        },
      );
      const bySession = await (await patch({ mode: 'room-visualizer', imageSize: '2K' }, admin.headers())).json();
      assert.deepEqual(
        [bySession.mode, bySession.imageSize, bySession.dailyGenerationCap],
        ['room-visualizer', '2K', 7],
      );
      assert.equal(
        (
          await (
            await fetch(`${app.url}/api/widgets/${created.id}`, { headers: { origin: 'https://www.shop.example' } })
          ).json()
        ).mode,
        'room-visualizer',
        'pages see the change',
      );
      assert.equal(
        (await errorOf(await patch({ dailyGenerationCap: 0 }, bearer(apiKey)), 400)).param,
        'dailyGenerationCap',
      );
      assert.equal((await errorOf(await patch({ allowedOrigins: [] }, bearer(apiKey)), 400)).param, 'allowedOrigins');
      assert.equal((await errorOf(await patch({ storeId: store.id }, bearer(apiKey)), 400)).code, 'parameter_invalid');
      const { apiKey: strangerKey } = await app.tenants.createOrganization({ name: 'Stranger', credits: 0 });
      assert.equal(
        (await errorOf(await patch({ dailyGenerationCap: 1 }, bearer(strangerKey.key)), 404)).code,
        'resource_missing',
      );
    });
  });
}
