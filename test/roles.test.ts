import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildOpenApiDocument } from '../core/http/openapi/document.ts';
import type { Method, Operation } from '../core/http/openapi/types.ts';
import { bearer } from './support/app.ts';
import { errorOf } from './support/databases.ts';
import { startGenerationApp } from './support/generation-app.ts';
import { startHttpsServer, type TestHttpsServer } from './support/https-server.ts';
import { invitedSession, jsonPost, type TestSession } from './support/sessions.ts';
import { waitFor } from './support/wait-for.ts';

/**
 * Roles and tenancy, enforced by the server on every route the OpenAPI document lists: the list of
 * operations comes from the document, so a route added later is covered without touching this file
 * (or fails here until it says how to reach its resource).
 */

const document = buildOpenApiDocument();
const methods: Method[] = ['get', 'put', 'post', 'delete', 'patch'];

interface Entry {
  method: Method;
  path: string;
  operation: Operation;
}

const v1Operations: Entry[] = Object.entries(document.paths)
  .filter(([path]) => path.startsWith('/v1/'))
  .flatMap(([path, item]) =>
    methods.flatMap((method) => (item[method] ? [{ method, path, operation: item[method]! }] : [])),
  );

const requirementsOf = (operation: Operation) => operation.security ?? document.security;
const takesSession = (entry: Entry) =>
  requirementsOf(entry.operation).some((requirement) => 'sessionCookie' in requirement);
const takesSecretKey = (entry: Entry) =>
  requirementsOf(entry.operation).some((requirement) => 'secretKey' in requirement);
const label = (entry: Entry) => `${entry.method.toUpperCase()} ${entry.path}`;
const pathParameters = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);

/** Changes a viewer may make: ending their own sessions. Everything else unsafe is refused to viewers. */
const viewerMayChange = new Set(['DELETE /v1/session', 'DELETE /v1/sessions/{id}']);
/** A server-sent event stream stays open: not a list to read to its end (its feed filters by organization in SQL, tested in event-stream tests). */
const notReadToTheEnd = new Set(['GET /v1/events/stream']);
/**
 * A visitor id is the browser's, not a row of one organization: another organization naming it
 * reads and erases its own data about that id (none here), never A's.
 */
const ownDataOfAnyId = new Set([
  'GET /v1/visitors/{visitorId}',
  'DELETE /v1/visitors/{visitorId}',
  ...['generations', 'identities', 'conversions'].map((kind) => `GET /v1/visitors/{visitorId}/${kind}`),
]);

describe('roles and organizations, on every /v1 operation of the OpenAPI document', () => {
  let g: Awaited<ReturnType<typeof startGenerationApp>>;
  let receiver: TestHttpsServer;
  let keyA: string;
  let adminA: TestSession;
  let viewerA: TestSession;
  let adminB: TestSession;
  let viewerB: TestSession;
  /** A real id of organization A for each path template's parameter. */
  const idsOfA = new Map<string, string>();
  /** Every id organization A has: none may appear in anything B reads. */
  const everyIdOfA = new Set<string>();

  const url = (path: string) => `${g.app.url}${path}`;
  /** The operation's documented example body when it has one, so a refusal is never just a bad body's 400. */
  const request = (entry: Entry, path: string, headers: Record<string, string>) => {
    const example = entry.operation.requestBody?.content['application/json']?.example;
    const hasBody = entry.method !== 'get' && entry.method !== 'delete';
    return fetch(url(path), {
      method: entry.method.toUpperCase(),
      headers: hasBody ? { 'content-type': 'application/json', ...headers } : headers,
      ...(hasBody ? { body: JSON.stringify(example ?? {}) } : {}),
    });
  };
  /** The path with A's real ids in it; a template this test does not know fails, naming it. */
  const pathWithIdsOfA = (template: string) =>
    template.replace(/\{([^}]+)\}/g, (_whole, name: string) => {
      const id = idsOfA.get(`${template}#${name}`) ?? idsOfA.get(template.split('/{')[0]!);
      assert.ok(id, `roles.test.ts: give ${template} an id of organization A (idsOfA)`);
      return id;
    });

  before(async () => {
    receiver = await startHttpsServer((_request, response) => void response.writeHead(204).end());
    g = await startGenerationApp();
    const { app } = g;
    const a = await app.tenants.createOrganization({ name: 'A', credits: 20 });
    const b = await app.tenants.createOrganization({ name: 'B', credits: 20 });
    keyA = a.apiKey.key;
    for (const id of [a.organization.id, a.store.id, a.apiKey.record.id, a.conversionKey.record.id]) everyIdOfA.add(id);
    adminA = await invitedSession(app, a.organization.id, 'admin');
    viewerA = await invitedSession(app, a.organization.id, 'viewer');
    adminB = await invitedSession(app, b.organization.id, 'admin');
    viewerB = await invitedSession(app, b.organization.id, 'viewer');
    for (const session of [adminA, viewerA]) everyIdOfA.add(session.userId).add(session.sessionId);
    // B has rows of its own, so its lists are not empty by accident.
    await app.tenants.createStore(b.organization.id, { name: 'B second' });

    const post = async (path: string, body: unknown, headers: Record<string, string> = bearer(keyA)) => {
      const response = await fetch(url(path), jsonPost(body, headers));
      assert.ok(response.ok, `${path}: ${response.status} ${await response.clone().text()}`);
      return response.json();
    };
    const endpoint = await post('/v1/webhook-endpoints', { url: `${receiver.url}/hook`, enabledEvents: ['*'] });
    const generation = await post('/v1/generations', g.validBody());
    await g.api.settled(keyA, generation.id);
    const widget = await post('/v1/widgets', {
      storeId: a.store.id,
      mode: 'virtual-try-on',
      imageSize: '1K',
      allowedOrigins: ['https://shop.example'],
    });
    const example = document.paths['/api/webhooks/orders']!.post!.requestBody!.content['application/json']!
      .example as Record<string, unknown>;
    await post(
      '/api/webhooks/orders',
      { ...example, organizationId: a.organization.id, storeId: a.store.id },
      bearer(a.conversionKey.key),
    );
    const newKey = await post('/v1/api-keys', { kind: 'conversion', name: 'A key' }, adminA.headers());
    const invitation = await post('/v1/invitations', { email: 'invited@a.example', role: 'viewer' }, adminA.headers());
    // The example order's visitor is one of A's visitors; an erasure (of a visitor A never saw) is one of A's erasures.
    const visitorOfA = String(example.visitorId);
    const erasure = await fetch(url('/v1/visitors/v-roles-unknown'), { method: 'DELETE', headers: bearer(keyA) });
    assert.equal(erasure.status, 202);
    const erasureId = (await erasure.json()).id as string;
    const readA = async (path: string) =>
      (await (await fetch(url(path), { headers: bearer(keyA) })).json()).data as { id: string }[];
    await waitFor('an event of A', async () => (await readA('/v1/events')).length > 0);
    const event = (await readA('/v1/events'))[0]!;
    await waitFor("an attempt of A's event", async () => (await readA(`/v1/events/${event.id}/attempts`)).length > 0);

    idsOfA.set('/v1/generations', generation.id);
    idsOfA.set('/v1/webhook-endpoints', endpoint.id);
    idsOfA.set('/v1/events', event.id);
    idsOfA.set('/v1/widgets', widget.id);
    idsOfA.set('/v1/api-keys', newKey.id);
    idsOfA.set('/v1/users', invitation.userId);
    idsOfA.set('/v1/sessions', adminA.sessionId);
    idsOfA.set('/v1/visitors', visitorOfA);
    idsOfA.set('/v1/visitor-erasures', erasureId);
    everyIdOfA.add(erasureId);
    for (const id of [endpoint.id, generation.id, widget.id, newKey.id, invitation.userId, event.id])
      everyIdOfA.add(id);
    // Every id A's own lists show (conversions, ledger entries, deliveries…) joins the set.
    for (const entry of v1Operations.filter(
      (item) => item.method === 'get' && pathParameters(item.path).length === 0 && !notReadToTheEnd.has(label(item)),
    )) {
      const response = await fetch(url(`${entry.path}?storeId=${a.store.id}`), { headers: adminA.headers() });
      if (!response.ok) continue;
      for (const match of (await response.text()).matchAll(/"id":"([a-z]+_[0-9A-Za-z]{24})"/g))
        everyIdOfA.add(match[1]!);
    }
  });
  after(async () => {
    await g.close();
    await receiver.close();
  });

  it('covers the routes that matter', () => {
    const labels = v1Operations.map(label);
    for (const expected of [
      'POST /v1/api-keys',
      'PATCH /v1/widgets/{id}',
      'DELETE /v1/webhook-endpoints/{id}',
      'GET /v1/users',
      'GET /v1/generations/{id}',
    ])
      assert.ok(labels.includes(expected), expected);
    assert.ok(everyIdOfA.size >= 14, `A has rows of every kind (${everyIdOfA.size} ids)`);
  });

  it("refuses a viewer's session every change, with a valid CSRF token, except ending their own sessions", async () => {
    const unsafe = v1Operations.filter((entry) => entry.method !== 'get' && takesSession(entry));
    assert.ok(unsafe.length >= 15, `${unsafe.length} unsafe operations take a session`);
    const refused: string[] = [];
    for (const entry of unsafe) {
      if (viewerMayChange.has(label(entry))) continue;
      const response = await request(entry, pathWithIdsOfA(entry.path), viewerA.headers());
      const error = await errorOf(response, 403);
      assert.equal(error.code, 'insufficient_role', `${label(entry)}: ${error.code}`);
      assert.equal(error.type, 'authorization_error');
      refused.push(label(entry));
    }
    assert.deepEqual(
      unsafe
        .map(label)
        .filter((name) => !refused.includes(name))
        .sort(),
      [...viewerMayChange].sort(),
      'only the own-session routes are left to viewers',
    );
    // Nothing changed: A's key list is what it was.
    const keys = await (await fetch(url('/v1/api-keys'), { headers: adminA.headers() })).json();
    assert.equal(keys.data.length, 3);
    // And what viewers may do is limited to their own sessions.
    assert.equal(
      (
        await errorOf(
          await fetch(url(`/v1/sessions/${adminA.sessionId}`), { method: 'DELETE', headers: viewerA.headers() }),
          404,
        )
      ).code,
      'resource_missing',
    );
  });

  it('refuses a viewer creating an API key by a hand-made request too', async () => {
    const response = await fetch(
      url('/v1/api-keys'),
      jsonPost(
        { kind: 'secret', name: 'sneaky' },
        viewerA.headers({ origin: new URL(g.app.container.cradle.config.publicUrl).origin }),
      ),
    );
    assert.equal((await errorOf(response, 403)).code, 'insufficient_role');
    const keys = await (await fetch(url('/v1/api-keys'), { headers: viewerA.headers() })).json();
    assert.ok(keys.data.every((key: { name: string | null }) => key.name !== 'sneaky'));
  });

  it('refuses a viewer the admin-only reads (the team)', async () => {
    assert.equal(
      (await errorOf(await fetch(url('/v1/users'), { headers: viewerA.headers() }), 403)).code,
      'insufficient_role',
    );
    assert.equal(
      (await errorOf(await fetch(url(`/v1/sessions?userId=${adminA.userId}`), { headers: viewerA.headers() }), 403))
        .code,
      'insufficient_role',
    );
  });

  it('refuses secret keys on every session-only route (403 session_required)', async () => {
    const sessionOnly = v1Operations.filter((entry) => takesSession(entry) && !takesSecretKey(entry));
    assert.ok(sessionOnly.length >= 10);
    for (const entry of sessionOnly) {
      const error = await errorOf(await request(entry, pathWithIdsOfA(entry.path), bearer(keyA)), 403);
      assert.equal(error.code, 'session_required', label(entry));
    }
  });

  it("answers 404 to organization B's sessions for every one of A's resources, read or changed", async () => {
    const withIds = v1Operations.filter((entry) => takesSession(entry) && pathParameters(entry.path).length > 0);
    for (const entry of withIds) {
      const path = pathWithIdsOfA(entry.path);
      if (ownDataOfAnyId.has(label(entry))) {
        // B asks about the same visitor id: B's own (empty) data, or an erasure of it, nothing of A's.
        const response = await request(entry, path, adminB.headers());
        const text = await response.text();
        assert.equal(response.status, entry.method === 'get' ? 200 : 202, `${label(entry)}: ${text}`);
        for (const id of everyIdOfA) assert.ok(!text.includes(id), `${label(entry)} as B shows A's ${id}`);
        continue;
      }
      const response = await request(entry, path, adminB.headers());
      const error = await errorOf(response, 404);
      assert.equal(error.code, 'resource_missing', `${label(entry)} → ${error.code}`);
      if (entry.method === 'get')
        assert.equal(
          (await errorOf(await request(entry, path, viewerB.headers()), 404)).code,
          'resource_missing',
          `${label(entry)} as a viewer`,
        );
    }
    // A's rows are all still there, A's visitor too.
    assert.equal((await fetch(url(`/v1/widgets/${idsOfA.get('/v1/widgets')}`), { headers: bearer(keyA) })).status, 200);
    await waitFor("B's erasure done", async () =>
      (await (await fetch(url('/v1/visitor-erasures'), { headers: adminB.headers() })).json()).data.every(
        (item: { status: string }) => item.status === 'complete',
      ),
    );
    const visitor = await (
      await fetch(url(`/v1/visitors/${idsOfA.get('/v1/visitors')}`), { headers: bearer(keyA) })
    ).json();
    assert.equal(
      visitor.conversions.data[0]?.visitorId,
      idsOfA.get('/v1/visitors'),
      "B's erasure left A's visitor alone",
    );
    assert.equal((await fetch(url(`/v1/session`), { headers: adminA.headers() })).status, 200);
  });

  it("shows none of A's rows in any read of B's sessions, whatever the filters", async () => {
    const reads = v1Operations.filter(
      (entry) =>
        entry.method === 'get' &&
        takesSession(entry) &&
        pathParameters(entry.path).length === 0 &&
        !notReadToTheEnd.has(label(entry)),
    );
    assert.ok(reads.length >= 12, `${reads.length} reads`);
    for (const entry of reads) {
      for (const session of [adminB, viewerB]) {
        for (const query of [
          '',
          `?storeId=${[...everyIdOfA].find((id) => id.startsWith('store_'))}`,
          `?starting_after=${idsOfA.get('/v1/generations')}`,
        ]) {
          const response = await fetch(url(`${entry.path}${query}`), { headers: session.headers() });
          const text = await response.text();
          // A filter naming A's store is refused (404) or ignored; either way nothing of A's comes back.
          assert.ok(
            [200, 400, 403, 404].includes(response.status),
            `${label(entry)}${query}: ${response.status} ${text}`,
          );
          // An error may repeat the id the query itself named; nothing else of A's may appear.
          for (const id of everyIdOfA)
            if (!query.includes(id))
              assert.ok(!text.includes(id), `${label(entry)}${query} as ${session.email} shows A's ${id}`);
        }
      }
    }
  });
});
