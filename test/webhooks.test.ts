import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { startScheduler } from '../core/lifecycle.ts';
import { verifyWebhook } from '../webhooks/verify.ts';
import { startGenerationApp, type GenerationApp } from './support/generation-app.ts';
import { startHttpsServer, type ReceivedRequest, type TestHttpsServer } from './support/https-server.ts';

const schedule = [0, 150, 300, 600, 1_200];
const header = (request: ReceivedRequest, name: string) => String(request.headers[name]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A receiver with one behaviour per path. Counts are per path and webhook-id, so each test's
 * event sees the behaviour from its first attempt.
 */
async function startReceiver() {
  const seen = new Map<string, number>();
  return startHttpsServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const attempt = (seen.get(`${path} ${req.headers['webhook-id']}`) ?? 0) + 1;
    seen.set(`${path} ${req.headers['webhook-id']}`, attempt);
    const answer = (status: number, headers: Record<string, string> = {}, body = '') => {
      res.writeHead(status, headers);
      res.end(body);
    };
    if (path.startsWith('/ok')) return answer(200, {}, 'thanks');
    if (path.startsWith('/flaky')) return attempt <= 2 ? answer(500, {}, 'not yet') : answer(204);
    if (path.startsWith('/always-500')) return answer(500, {}, 'x'.repeat(5_000));
    if (path.startsWith('/gone')) return answer(410);
    if (path.startsWith('/redirect')) return answer(302, { location: '/ok-redirect-target' });
    if (path.startsWith('/retry-after')) return attempt === 1 ? answer(429, { 'retry-after': '1' }) : answer(200);
    if (path.startsWith('/slow')) {
      if (attempt === 1) await sleep(10_500);
      return answer(200);
    }
    answer(404);
  });
}

describe('webhooks', () => {
  let g: GenerationApp;
  let receiver: TestHttpsServer;
  let key: string;
  let organizationId: string;

  before(async () => {
    receiver = await startReceiver();
    g = await startGenerationApp({
      env: { VISUALIZER_WEBHOOK_RETRY_SCHEDULE: schedule.join(',') },
      config: { webhooks: { retrySchedule: schedule, sweepIntervalMs: 100, maxEndpointsPerOrganization: 5 } },
    });
    await startScheduler(g.app.container.cradle);
    const created = await g.app.tenants.createOrganization({ name: 'Hooks', credits: 200 });
    key = created.apiKey.key;
    organizationId = created.organization.id;
  });
  after(async () => {
    await g.close();
    await receiver.close();
  });

  const json = (body: unknown) => ({
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${g.app.url}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...(init.headers ?? {}) } });

  async function endpoint(path: string, enabledEvents: string[] = ['*'], apiKey = key) {
    const response = await fetch(`${g.app.url}/v1/webhook-endpoints`, {
      ...json({ url: `${receiver.url}${path}`, enabledEvents }),
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    });
    assert.equal(response.status, 201, await response.clone().text());
    return (await response.json()) as { id: string; secret: string; status: string };
  }

  /** Makes a generation reach a terminal state and returns its event id. */
  async function terminalEvent(fail = false): Promise<string> {
    const body = g.validBody(fail ? { image: `${g.host.url}/missing` } : {});
    const { id } = await (await g.api.post(key, body)).json();
    await g.api.settled(key, id);
    const events = await (await api('/v1/events?limit=20')).json();
    return events.data.find((event: { data: { id: string } }) => event.data.id === id).id;
  }

  async function deliveriesSettled(eventId: string, timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const event = await (await api(`/v1/events/${eventId}`)).json();
      if (event.deliveries.every((delivery: { status: string }) => delivery.status !== 'pending')) return event;
      if (Date.now() > deadline) throw new Error(`deliveries still pending: ${JSON.stringify(event.deliveries)}`);
      await sleep(50);
    }
  }

  const received = (path: string, eventId: string) =>
    receiver.requests.filter((request) => request.path === path && request.headers['webhook-id'] === eventId);

  describe('endpoints API', () => {
    it('registers an endpoint and shows its whsec_ secret once', async () => {
      const created = await endpoint('/ok-register', ['generation.completed']);
      assert.match(created.id, /^whe_[0-9A-Za-z]{24}$/);
      assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.equal(Buffer.from(created.secret.slice(6), 'base64').length, 32);
      const full = created as unknown as Record<string, unknown>;
      assert.equal(full.object, 'webhook_endpoint');
      assert.equal(full.status, 'enabled');
      assert.deepEqual(full.enabledEvents, ['generation.completed']);
      assert.match(String(full.createdAt), /\.\d{3}Z$/);
      assert.match(String(full.updatedAt), /\.\d{3}Z$/);
      const fetched = await (await api(`/v1/webhook-endpoints/${created.id}`)).json();
      assert.equal(fetched.secret, undefined, 'never shown again');
      const listed = await (await api('/v1/webhook-endpoints')).json();
      assert.ok(listed.data.every((item: Record<string, unknown>) => item.secret === undefined));
      await api(`/v1/webhook-endpoints/${created.id}`, { method: 'DELETE' });
    });

    it('refuses invalid registrations with the field named', async () => {
      const cases: Array<[unknown, string]> = [
        [{ url: 'http://example.com/hook', enabledEvents: ['*'] }, 'url'],
        [{ url: 'not a url', enabledEvents: ['*'] }, 'url'],
        [{ url: 'https://example.com/hook', enabledEvents: [] }, 'enabledEvents'],
        [{ url: 'https://example.com/hook', enabledEvents: ['generation.started'] }, 'enabledEvents[0]'],
        [{ url: 'https://example.com/hook', enabledEvents: ['*', 'generation.failed'] }, 'enabledEvents'],
        [{ url: 'https://example.com/hook' }, 'enabledEvents'],
        [{ url: 'https://example.com/hook', enabledEvents: ['*'], secret: 'mine' }, 'secret'],
      ];
      for (const [body, param] of cases) {
        const response = await api('/v1/webhook-endpoints', json(body));
        assert.equal(response.status, 400);
        const { error } = await response.json();
        assert.equal(error.type, 'invalid_request_error');
        assert.equal(error.param, param, JSON.stringify(body));
      }
    });

    it('updates, disables, deletes, caps, and keeps other organizations out', async () => {
      const created = await endpoint('/ok-manage', ['generation.failed']);
      const patched = await (
        await api(`/v1/webhook-endpoints/${created.id}`, {
          ...json({ description: 'orders', enabledEvents: ['*'], status: 'disabled' }),
          method: 'PATCH',
        })
      ).json();
      assert.equal(patched.description, 'orders');
      assert.deepEqual(patched.enabledEvents, ['*']);
      assert.equal(patched.status, 'disabled');
      assert.equal(patched.disabledReason, 'disabled_by_user');
      const reenabled = await (
        await api(`/v1/webhook-endpoints/${created.id}`, { ...json({ status: 'enabled' }), method: 'PATCH' })
      ).json();
      assert.equal(reenabled.status, 'enabled');
      assert.equal((await api(`/v1/webhook-endpoints/${created.id}`, { ...json({}), method: 'PATCH' })).status, 400);

      const other = await g.app.tenants.createOrganization({ name: 'Other', credits: 0 });
      const foreign = await fetch(`${g.app.url}/v1/webhook-endpoints/${created.id}`, {
        headers: { authorization: `Bearer ${other.apiKey.key}` },
      });
      assert.equal(foreign.status, 404);
      const foreignDelete = await fetch(`${g.app.url}/v1/webhook-endpoints/${created.id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${other.apiKey.key}` },
      });
      assert.equal(foreignDelete.status, 404);

      const deleted = await (await api(`/v1/webhook-endpoints/${created.id}`, { method: 'DELETE' })).json();
      assert.deepEqual(deleted, { id: created.id, object: 'webhook_endpoint', deleted: true });
      assert.equal((await api(`/v1/webhook-endpoints/${created.id}`)).status, 404);

      for (let i = 0; i < 5; i++) await endpoint(`/ok-cap-${i}`, ['*'], other.apiKey.key);
      const over = await fetch(`${g.app.url}/v1/webhook-endpoints`, {
        ...json({ url: `${receiver.url}/ok-cap-x`, enabledEvents: ['*'] }),
        headers: { authorization: `Bearer ${other.apiKey.key}`, 'content-type': 'application/json' },
      });
      assert.equal(over.status, 400);
      assert.equal((await over.json()).error.code, 'endpoint_limit_reached');
    });
  });

  describe('delivery', () => {
    let all: { id: string; secret: string };
    let completedOnly: { id: string; secret: string };
    let failedOnly: { id: string; secret: string };
    before(async () => {
      all = await endpoint('/ok-all');
      completedOnly = await endpoint('/ok-completed', ['generation.completed']);
      failedOnly = await endpoint('/ok-failed', ['generation.failed']);
    });

    it('sends one signed event per subscribed endpoint, the body exactly the Generation as GET returns it', async () => {
      const eventId = await terminalEvent();
      await deliveriesSettled(eventId);
      const [delivery] = received('/ok-all', eventId);
      assert.ok(delivery, 'the * endpoint received it');
      assert.equal(received('/ok-completed', eventId).length, 1);
      assert.equal(received('/ok-failed', eventId).length, 0, 'not subscribed to generation.completed');

      assert.equal(header(delivery, 'content-type'), 'application/json');
      assert.equal(header(delivery, 'webhook-id'), eventId);
      assert.ok(Math.abs(Number(header(delivery, 'webhook-timestamp')) - Date.now() / 1000) < 60);
      const raw = delivery.body.toString('utf8');
      const viaPackage = new Webhook(all.secret).verify(raw, delivery.headers as Record<string, string>) as {
        id: string;
        type: string;
        createdAt: string;
        data: { id: string };
      };
      assert.equal(viaPackage.id, eventId);
      assert.equal(viaPackage.type, 'generation.completed');
      assert.match(viaPackage.createdAt, /\.\d{3}Z$/);
      const generation = await (await api(`/v1/generations/${viaPackage.data.id}`)).json();
      assert.deepEqual(viaPackage.data, generation);
      assert.deepEqual(verifyWebhook(all.secret, delivery.headers, delivery.body), viaPackage, 'our verifier agrees');
      assert.throws(
        () => new Webhook(completedOnly.secret).verify(raw, delivery.headers as Record<string, string>),
        'another endpoint’s secret does not verify',
      );
    });

    it('sends generation.failed to endpoints subscribed to it', async () => {
      const eventId = await terminalEvent(true);
      await deliveriesSettled(eventId);
      const [delivery] = received('/ok-failed', eventId);
      const event = new Webhook(failedOnly.secret).verify(
        delivery!.body.toString(),
        delivery!.headers as Record<string, string>,
      ) as { type: string; data: { error: { code: string } } };
      assert.equal(event.type, 'generation.failed');
      assert.equal(event.data.error.code, 'image_fetch_failed');
      assert.equal(received('/ok-completed', eventId).length, 0);
      assert.equal(received('/ok-all', eventId).length, 1);
    });

    it('shows the event, its deliveries and every attempt', async () => {
      const eventId = await terminalEvent();
      const event = await deliveriesSettled(eventId);
      assert.equal(event.id, eventId);
      assert.deepEqual(
        new Set(event.deliveries.map((d: { endpointId: string }) => d.endpointId)),
        new Set([all.id, completedOnly.id]),
      );
      assert.ok(
        event.deliveries.every(
          (d: { status: string; attemptCount: number }) => d.status === 'succeeded' && d.attemptCount === 1,
        ),
      );
      const attempts = await (await api(`/v1/events/${eventId}/attempts`)).json();
      assert.equal(attempts.data.length, 2);
      const toAll = attempts.data.find((a: { endpointId: string }) => a.endpointId === all.id);
      assert.equal(toAll.statusCode, 200);
      assert.equal(toAll.responseBody, 'thanks');
      assert.equal(toAll.error, null);
      assert.equal(typeof toAll.durationMs, 'number');
      assert.match(toAll.attemptedAt, /\.\d{3}Z$/);
      const list = await (await api('/v1/events?type=generation.completed&limit=2')).json();
      assert.equal(list.object, 'list');
      assert.ok(list.data.every((item: { type: string }) => item.type === 'generation.completed'));
      assert.equal((await api('/v1/events/evt_unknown')).status, 404);
    });

    it('resends an event to one endpoint or to all subscribed, with the same id and body', async () => {
      const eventId = await terminalEvent();
      await deliveriesSettled(eventId);
      const first = received('/ok-all', eventId)[0]!;
      const one = await api(`/v1/events/${eventId}/resend`, json({ endpointId: all.id }));
      assert.equal(one.status, 202);
      assert.equal((await one.json()).data.length, 1);
      await deliveriesSettled(eventId);
      const again = received('/ok-all', eventId);
      assert.equal(again.length, 2);
      assert.deepEqual(again[1]!.body, first.body, 'the same bytes');
      const everyone = await (await api(`/v1/events/${eventId}/resend`, { method: 'POST' })).json();
      assert.equal(everyone.data.length, 2, 'both subscribed endpoints');
      await deliveriesSettled(eventId);
      assert.equal(received('/ok-completed', eventId).length, 2);
      const unknown = await api(`/v1/events/${eventId}/resend`, json({ endpointId: 'whe_nope' }));
      assert.equal(unknown.status, 404);
    });

    after(async () => {
      for (const item of [all, completedOnly, failedOnly])
        await api(`/v1/webhook-endpoints/${item.id}`, { method: 'DELETE' });
    });
  });

  describe('retries', () => {
    /** One endpoint alone, one event, the attempts it received. */
    async function deliverTo(path: string) {
      const created = await endpoint(path);
      const eventId = await terminalEvent();
      const event = await deliveriesSettled(eventId);
      await api(`/v1/webhook-endpoints/${created.id}`, { method: 'DELETE' });
      return { created, eventId, event, requests: received(path, eventId) };
    }

    it('a receiver that fails twice gets exactly 3 attempts with one webhook-id', async () => {
      const { requests, event } = await deliverTo('/flaky');
      assert.equal(requests.length, 3);
      assert.equal(new Set(requests.map((request) => header(request, 'webhook-id'))).size, 1);
      assert.equal(event.deliveries[0].status, 'succeeded');
      assert.equal(event.deliveries[0].attemptCount, 3);
    });

    it('an always-failing receiver gets exactly 5 attempts, each at least its scheduled gap after the last', async () => {
      const { requests, event, eventId } = await deliverTo('/always-500');
      assert.equal(requests.length, 5);
      assert.equal(event.deliveries[0].status, 'failed');
      const attempts = (await (await api(`/v1/events/${eventId}/attempts`)).json()).data as Array<{
        attemptedAt: string;
        statusCode: number;
        responseBody: string;
      }>;
      const times = attempts.map((attempt) => Date.parse(attempt.attemptedAt));
      const gaps = times.slice(1).map((time, index) => time - times[index]!);
      // Lower bounds only: a loaded host delays any attempt, so a measured gap can exceed the next one's.
      gaps.forEach((gap, index) => {
        assert.ok(gap >= schedule[index + 1]! * 0.8, `gap ${index} honours the schedule: ${gaps}`);
      });
      assert.equal(attempts[0]!.statusCode, 500);
      assert.equal(attempts[0]!.responseBody.length, 2048, 'the first 2 KB of the response are kept');
    });

    it('410 Gone disables the endpoint', async () => {
      const created = await endpoint('/gone');
      const eventId = await terminalEvent();
      const event = await deliveriesSettled(eventId);
      assert.equal(received('/gone', eventId).length, 1, 'no retry after 410');
      assert.equal(event.deliveries[0].status, 'failed');
      const state = await (await api(`/v1/webhook-endpoints/${created.id}`)).json();
      assert.equal(state.status, 'disabled');
      assert.equal(state.disabledReason, 'gone');
      const next = await terminalEvent();
      assert.equal(
        (await (await api(`/v1/events/${next}`)).json()).deliveries.length,
        0,
        'a disabled endpoint gets nothing',
      );
      await api(`/v1/webhook-endpoints/${created.id}`, { method: 'DELETE' });
    });

    it('a redirect is not followed and counts as a failure', async () => {
      const { requests, eventId } = await deliverTo('/redirect');
      assert.equal(requests.length, 5);
      assert.equal(receiver.requests.filter((request) => request.path === '/ok-redirect-target').length, 0);
      const attempts = (await (await api(`/v1/events/${eventId}/attempts`)).json()).data;
      assert.ok(attempts.every((attempt: { statusCode: number }) => attempt.statusCode === 302));
    });

    it('honours Retry-After on 429', async () => {
      const { requests } = await deliverTo('/retry-after');
      assert.equal(requests.length, 2);
      const gap = Number(header(requests[1]!, 'webhook-timestamp')) - Number(header(requests[0]!, 'webhook-timestamp'));
      assert.ok(gap >= 1, `waited the second the receiver asked for (schedule says 150 ms): ${gap}`);
    });

    it('a receiver slower than 10 s counts as failed', async () => {
      const { requests, eventId, event } = await deliverTo('/slow');
      assert.equal(requests.length, 2);
      const attempts = (await (await api(`/v1/events/${eventId}/attempts`)).json()).data;
      assert.equal(attempts[0].statusCode, null);
      assert.match(attempts[0].error, /timeout/i);
      assert.ok(attempts[0].durationMs >= 9_900 && attempts[0].durationMs < 11_000);
      assert.equal(event.deliveries[0].status, 'succeeded');
    });
  });

  it('signs with both secrets during a rotation grace period', async () => {
    const created = await endpoint('/ok-rotate');
    const rotated = await (await api(`/v1/webhook-endpoints/${created.id}/rotate-secret`, { method: 'POST' })).json();
    assert.match(rotated.secret, /^whsec_/);
    assert.notEqual(rotated.secret, created.secret);
    assert.ok(Date.parse(rotated.previousSecretExpiresAt) - Date.now() > 23 * 3_600_000, '24 h grace by default');
    const eventId = await terminalEvent();
    await deliveriesSettled(eventId);
    const [delivery] = received('/ok-rotate', eventId);
    const entries = header(delivery!, 'webhook-signature').split(' ');
    assert.equal(entries.length, 2);
    assert.ok(entries.every((entry) => entry.startsWith('v1,')));
    for (const secret of [created.secret, rotated.secret]) {
      assert.doesNotThrow(() =>
        new Webhook(secret).verify(delivery!.body.toString(), delivery!.headers as Record<string, string>),
      );
    }
    await api(`/v1/webhook-endpoints/${created.id}`, { method: 'DELETE' });
  });

  it('does not let another organization read or resend events', async () => {
    const eventId = await terminalEvent();
    const other = await g.app.tenants.createOrganization({ name: 'Snoop', credits: 0 });
    for (const path of [`/v1/events/${eventId}`, `/v1/events/${eventId}/attempts`]) {
      assert.equal(
        (await fetch(`${g.app.url}${path}`, { headers: { authorization: `Bearer ${other.apiKey.key}` } })).status,
        404,
      );
    }
    assert.equal(
      (
        await fetch(`${g.app.url}/v1/events/${eventId}/resend`, {
          method: 'POST',
          headers: { authorization: `Bearer ${other.apiKey.key}` },
        })
      ).status,
      404,
    );
    assert.ok(organizationId);
  });
});

describe('webhook endpoint auto-disable', () => {
  let g: GenerationApp;
  let receiver: TestHttpsServer;
  before(async () => {
    receiver = await startReceiver();
    g = await startGenerationApp({
      config: { webhooks: { retrySchedule: [0, 60_000], disableAfterFailingMs: 1_000, sweepIntervalMs: 100 } },
    });
    await startScheduler(g.app.container.cradle);
  });
  after(async () => {
    await g.close();
    await receiver.close();
  });

  it('disables an endpoint whose deliveries have all failed for the configured period, and abandons its pending retries', async () => {
    const { apiKey } = await g.app.tenants.createOrganization({ name: 'Failing', credits: 5 });
    const headers = { authorization: `Bearer ${apiKey.key}`, 'content-type': 'application/json' };
    const created = await (
      await fetch(`${g.app.url}/v1/webhook-endpoints`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: `${receiver.url}/always-500`, enabledEvents: ['*'] }),
      })
    ).json();
    const { id } = await (await g.api.post(apiKey.key, g.validBody())).json();
    await g.api.settled(apiKey.key, id);
    const deadline = Date.now() + 30_000;
    let state;
    do {
      await sleep(100);
      state = await (await fetch(`${g.app.url}/v1/webhook-endpoints/${created.id}`, { headers })).json();
    } while (state.status === 'enabled' && Date.now() < deadline);
    assert.equal(state.status, 'disabled');
    assert.equal(state.disabledReason, 'failing');
    assert.equal(
      receiver.requests.filter((request) => request.path === '/always-500').length,
      1,
      'the retry a minute later is not due yet',
    );
  });
});
