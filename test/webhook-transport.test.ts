import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createGuardedClient, OutboundError, type GuardedClient } from '../core/outbound/guarded-client.ts';
import { freePort } from '../core/http/free-port.ts';
import type { DeliveryRequest, WebhookTransport } from '../core/ports/webhook-transport.ts';
import { generateWebhookSecret, signatureHeader } from '../core/domain/webhook-signature.ts';
import httpTransportPlugin from '../plugins/transport-http/index.ts';
import { parseRetryAfter } from '../kit/plugin.ts';
import { createHttpTransport, responseText } from '../plugins/transport-http/http-transport.ts';
import { verifyWebhook } from '../webhooks/verify.ts';
import { startHttpsServer, testCertificates, type TestHttpsServer } from './support/https-server.ts';
import { pluginContext } from '../kit/testing/plugin-context.ts';

const FIXED_NOW = 1_800_000_000_000;
const secret = generateWebhookSecret();

let server: TestHttpsServer;
let client: GuardedClient;
let transport: WebhookTransport;

function delivery(path: string, overrides: Partial<DeliveryRequest> = {}): DeliveryRequest {
  return {
    url: `${server.url}${path}`,
    headers: { 'content-type': 'application/json' },
    body: new TextEncoder().encode('{"id":"evt_1"}'),
    timeoutMs: 5000,
    ...overrides,
  };
}

function requestsTo(path: string) {
  return server.requests.filter((r) => r.path === path);
}

before(async () => {
  const certs = await testCertificates();
  server = await startHttpsServer((req, res, body) => {
    const url = new URL(req.url ?? '/', 'https://localhost');
    switch (url.pathname) {
      case '/ok':
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('thanks');
        return;
      case '/big':
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('x'.repeat(10 * 1024));
        return;
      case '/huge':
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('x'.repeat(100 * 1024));
        return;
      case '/fail':
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('boom');
        return;
      case '/redirect':
        res.writeHead(302, { location: '/redirect-target' });
        res.end();
        return;
      case '/redirect-target':
        res.end('should never be requested');
        return;
      case '/throttle':
        res.writeHead(429, { 'retry-after': '7' });
        res.end();
        return;
      case '/unavailable':
        res.writeHead(503, { 'retry-after': url.searchParams.get('at') ?? '' });
        res.end();
        return;
      case '/hang':
        // Never answers; close() drops the connection.
        return;
      case '/socket':
        // The client's port identifies the TCP connection, so equal ports mean a reused socket.
        res.end(String(req.socket.remotePort));
        return;
      case '/verify':
        // A customer's receiver: verifies the raw bytes with the helper customers copy.
        try {
          const event = verifyWebhook(secret, req.headers, body) as { id: string };
          res.writeHead(200).end(`verified ${event.id}`);
        } catch (err) {
          res.writeHead(400).end((err as Error).message);
        }
        return;
      default:
        res.writeHead(204);
        res.end();
    }
  });
  client = createGuardedClient({ allow: ['localhost'], ca: certs.caPem });
  transport = createHttpTransport(client);
});

after(async () => {
  client.close();
  await server.close();
});

describe('http webhook transport', () => {
  test('a 200 reports its status and captures the response body', async () => {
    const outcome = await transport.send(delivery('/ok'));
    assert.equal(outcome.status, 200);
    assert.equal(outcome.error, null);
    assert.equal(outcome.responseBody, 'thanks');
    assert.equal(outcome.retryAfterMs, null);
    assert.ok(outcome.durationMs >= 0 && outcome.durationMs < 5000);
  });

  test('keeps only the first 2048 characters of a 10 KB response body', async () => {
    const outcome = await transport.send(delivery('/big'));
    assert.equal(outcome.status, 200);
    assert.equal(outcome.responseBody, 'x'.repeat(2048));
  });

  test('a 500 is an outcome with its status and body, not an error', async () => {
    const outcome = await transport.send(delivery('/fail'));
    assert.equal(outcome.status, 500);
    assert.equal(outcome.error, null);
    assert.equal(outcome.responseBody, 'boom');
  });

  test('a 302 is reported and its Location is never requested', async () => {
    const outcome = await transport.send(delivery('/redirect'));
    assert.equal(outcome.status, 302);
    assert.equal(outcome.error, null);
    assert.equal(requestsTo('/redirect').length, 1);
    assert.equal(requestsTo('/redirect-target').length, 0);
  });

  test('a 429 with Retry-After: 7 gives retryAfterMs 7000', async () => {
    const outcome = await transport.send(delivery('/throttle'));
    assert.equal(outcome.status, 429);
    assert.equal(outcome.retryAfterMs, 7000);
  });

  test('a 503 with an HTTP-date Retry-After gives the time until that date', async () => {
    const at = new Date(FIXED_NOW + 120_000).toUTCString();
    const fixedClock = createHttpTransport(client, { now: () => FIXED_NOW });
    const outcome = await fixedClock.send(delivery(`/unavailable?at=${encodeURIComponent(at)}`));
    assert.equal(outcome.status, 503);
    assert.equal(outcome.retryAfterMs, 120_000);

    // With the real clock: the date has whole seconds, so the delay is a little under two minutes.
    const soon = new Date(Date.now() + 120_000).toUTCString();
    const real = await transport.send(delivery(`/unavailable?at=${encodeURIComponent(soon)}`));
    assert.ok(
      real.retryAfterMs !== null && real.retryAfterMs > 110_000 && real.retryAfterMs <= 120_000,
      String(real.retryAfterMs),
    );
  });

  test('a receiver that never answers times out: no status, the error says timeout', async () => {
    const started = Date.now();
    const outcome = await transport.send(delivery('/hang', { timeoutMs: 300 }));
    assert.equal(outcome.status, null);
    assert.match(outcome.error ?? '', /timeout/i);
    assert.equal(outcome.responseBody, '');
    assert.ok(Date.now() - started < 3000, 'gave up near the timeout');
    assert.ok(outcome.durationMs >= 250, `durationMs ${outcome.durationMs}`);
  });

  test('connection refused: no status, an error', async () => {
    const port = await freePort();
    const outcome = await transport.send({ ...delivery('/'), url: `https://localhost:${port}/hook` });
    assert.equal(outcome.status, null);
    assert.match(outcome.error ?? '', /ECONNREFUSED|Could not reach/);
  });

  test('a private address that is not allowlisted is refused before any request', async () => {
    const before = server.requests.length;
    // The client allowlists the name "localhost" only; the literal loopback address is guarded.
    const outcome = await transport.send({ ...delivery('/'), url: `https://127.0.0.1:${server.port}/hook` });
    assert.equal(outcome.status, null);
    assert.match(outcome.error ?? '', /blocked_address/);
    assert.equal(server.requests.length, before);
  });

  test('http:// endpoints are refused', async () => {
    const outcome = await transport.send({ ...delivery('/'), url: `http://localhost:${server.port}/hook` });
    assert.equal(outcome.status, null);
    assert.match(outcome.error ?? '', /not_https/);
  });

  test('body bytes and headers arrive unchanged, with a webhook user-agent', async () => {
    // Not valid UTF-8 on purpose: nothing may decode and re-encode the body on the way.
    const body = new Uint8Array([0x7b, 0xff, 0x00, 0xc3, 0x28, 0xe2, 0x82, 0xac, 0x7d]);
    const headers = {
      'content-type': 'application/json',
      'webhook-id': 'evt_abc',
      'webhook-timestamp': '1700000000',
      'webhook-signature': 'v1,AAAA v1,BBBB',
    };
    const outcome = await transport.send(delivery('/exact', { body, headers }));
    assert.equal(outcome.status, 204);
    const [received] = requestsTo('/exact');
    assert.ok(received);
    assert.equal(received.method, 'POST');
    assert.ok(Buffer.from(body).equals(received.body));
    for (const [name, value] of Object.entries(headers)) assert.equal(received.headers[name], value);
    assert.equal(received.headers['user-agent'], 'Visualizer-Webhooks/1.0');
    assert.equal(received.headers['content-length'], String(body.byteLength));
  });

  test("a caller's own User-Agent is kept (case-insensitively)", async () => {
    await transport.send(delivery('/ua', { headers: { 'User-Agent': 'Custom/2' } }));
    assert.equal(requestsTo('/ua')[0]?.headers['user-agent'], 'Custom/2');
  });

  test('a signed delivery verifies at the receiver with verifyWebhook', async () => {
    const body = new TextEncoder().encode(
      JSON.stringify({ id: 'evt_signed', type: 'generation.completed', data: { note: 'ünïcødé ✓' } }),
    );
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'content-type': 'application/json',
      'webhook-id': 'evt_signed',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader([generateWebhookSecret(), secret], 'evt_signed', timestamp, body),
    };
    const outcome = await transport.send(delivery('/verify', { body, headers }));
    assert.equal(outcome.responseBody, 'verified evt_signed');
    assert.equal(outcome.status, 200);
  });

  test('keep-alive: two deliveries to one receiver reuse one socket', async () => {
    let connections = 0;
    const count = () => connections++;
    server.server.on('secureConnection', count);
    try {
      const first = await transport.send(delivery('/socket'));
      const second = await transport.send(delivery('/socket'));
      assert.equal(first.status, 200);
      assert.equal(first.responseBody, second.responseBody);
      assert.ok(connections <= 1, `${connections} new TLS connections`);
    } finally {
      server.server.off('secureConnection', count);
    }
  });

  test('a 2xx response over 64 KB still counts by its status', async () => {
    const outcome = await transport.send(delivery('/huge'));
    assert.equal(outcome.responseBody, '');
    assert.equal(outcome.status, 200);
    assert.equal(outcome.error, null);
  });
});

describe('http webhook transport with a stub client', () => {
  const stub = (behaviour: () => Promise<never>): GuardedClient => ({ request: behaviour, close() {} });

  test('an oversized response whose status the client reports is an outcome with that status', async () => {
    const t = createHttpTransport(
      stub(() =>
        Promise.reject(new OutboundError('too_large', 'Response body is larger than 65536 bytes', false, 200)),
      ),
    );
    const outcome = await t.send({ url: 'https://example.com/', headers: {}, body: new Uint8Array(), timeoutMs: 1000 });
    assert.deepEqual(
      { ...outcome, durationMs: 0 },
      { status: 200, error: null, durationMs: 0, responseBody: '', retryAfterMs: null },
    );
  });

  test('programming errors reject instead of becoming an outcome', async () => {
    const t = createHttpTransport(stub(() => Promise.reject(new TypeError('bug'))));
    await assert.rejects(
      t.send({ url: 'https://example.com/', headers: {}, body: new Uint8Array(), timeoutMs: 1000 }),
      TypeError,
    );
  });
});

describe('the http plugin', () => {
  test('registers transport on the shared outbound client', async () => {
    const { transport: registered } = await httpTransportPlugin.register(pluginContext({}, { outbound: client }));
    assert.equal((await registered.send(delivery('/ok'))).status, 200);
    assert.deepEqual(httpTransportPlugin.provides, ['transport']);
  });
});

describe('Retry-After parsing', () => {
  const now = Date.UTC(2026, 0, 15, 12, 0, 0);

  test('delta-seconds', () => {
    assert.equal(parseRetryAfter('0', now), 0);
    assert.equal(parseRetryAfter(' 120 ', now), 120_000);
  });

  test('the three HTTP-date forms, relative to now; a past date is 0', () => {
    assert.equal(parseRetryAfter('Thu, 15 Jan 2026 12:01:30 GMT', now), 90_000);
    assert.equal(parseRetryAfter('Thursday, 15-Jan-26 12:00:10 GMT', now), 10_000);
    assert.equal(parseRetryAfter('Thu Jan 15 12:00:05 2026', now), 5_000);
    assert.equal(parseRetryAfter('Thu Jan  1 00:00:00 2026', now), 0);
    assert.equal(parseRetryAfter('Wed, 14 Jan 2026 12:00:00 GMT', now), 0);
  });

  test('absent or malformed values are null', () => {
    for (const bad of [
      undefined,
      '',
      '-5',
      '7.5',
      '1e3',
      'soon',
      'Thu, 31 Feb 2026 12:00:00 GMT',
      '2026-01-15T12:01:00Z',
      'Thu, 15 Jan 2026 25:00:00 GMT',
    ]) {
      assert.equal(parseRetryAfter(bad, now), null, String(bad));
    }
  });
});

describe('response excerpt', () => {
  test('decodes UTF-8, keeps 2048 characters without splitting a surrogate pair, drops NUL', () => {
    const encode = (s: string) => new TextEncoder().encode(s);
    assert.equal(responseText(encode('é'.repeat(3000))), 'é'.repeat(2048));
    const emoji = responseText(encode(`a${'😀'.repeat(2000)}`));
    assert.equal(emoji, `a${'😀'.repeat(1023)}`);
    assert.equal(responseText(new Uint8Array([0x6f, 0x00, 0x6b, 0xff])), 'o\uFFFDk\uFFFD');
  });
});
