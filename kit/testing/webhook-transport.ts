import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { DeliveryRequest, WebhookTransport } from '../plugin.ts';
import { startHttpsReceiver, type HttpsReceiver } from './https-receiver.ts';

export interface WebhookTransportContractOptions<Transport extends WebhookTransport = WebhookTransport> {
  name: string;
  /**
   * The transport under test, able to reach the suite's receiver: an HTTPS server on loopback,
   * at `https://localhost:PORT`, whose certificate `caPem` is the CA to trust. A transport that
   * guards against private addresses allows `hostname` for the test.
   */
  create(receiver: { url: string; hostname: 'localhost'; caPem: string }): Transport | Promise<Transport>;
  dispose?(transport: Transport): void | Promise<void>;
}

/** A port nothing listens on: taken from the system, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * The webhook transport contract: one request per call with the body and headers unchanged,
 * redirects reported rather than followed, and every response or network failure an outcome.
 * It runs against a real HTTPS receiver on loopback that the suite starts.
 */
export function webhookTransportContract<Transport extends WebhookTransport>(
  options: WebhookTransportContractOptions<Transport>,
) {
  describe(`webhook transport contract: ${options.name}`, () => {
    let receiver: HttpsReceiver;
    let transport: Transport | undefined;
    let unique = 0;
    /** A path no other test uses, so counting the requests to it counts this test's. */
    const fresh = (name: string) => `/${name}-${++unique}`;
    const requestsTo = (path: string) => receiver.requests.filter((request) => request.path === path);
    const delivery = (path: string, overrides: Partial<DeliveryRequest> = {}): DeliveryRequest => ({
      url: `${receiver.url}${path}`,
      headers: { 'content-type': 'application/json' },
      body: new TextEncoder().encode('{"id":"evt_1"}'),
      timeoutMs: 5_000,
      ...overrides,
    });
    const send = (request: DeliveryRequest) => transport!.send(request);

    before(async () => {
      receiver = await startHttpsReceiver((request, response) => {
        const url = new URL(request.url ?? '/', 'https://localhost');
        const route = url.pathname.replace(/-\d+$/, '');
        switch (route) {
          case '/ok':
            return void response.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
          case '/big':
            return void response.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(10 * 1024));
          case '/fail':
            return void response.writeHead(500, { 'content-type': 'text/plain' }).end('boom');
          case '/redirect':
            return void response.writeHead(302, { location: `${url.pathname}-target` }).end();
          case '/throttle':
            return void response.writeHead(429, { 'retry-after': '7' }).end();
          case '/unavailable':
            return void response.writeHead(503, { 'retry-after': url.searchParams.get('at') ?? '' }).end();
          case '/hang':
            return; // never answers; close() drops the connection
          default:
            return void response.writeHead(204).end();
        }
      });
      transport = await options.create({ url: receiver.url, hostname: 'localhost', caPem: receiver.caPem });
    });
    after(async () => {
      if (transport) await options.dispose?.(transport);
      await receiver?.close();
    });

    it('reports a 200 with its status and the response body, and no error', async () => {
      const path = fresh('ok');
      const outcome = await send(delivery(path));
      assert.equal(outcome.status, 200);
      assert.equal(outcome.error, null);
      assert.equal(outcome.responseBody, 'thanks');
      assert.equal(outcome.retryAfterMs, null);
      assert.ok(
        Number.isFinite(outcome.durationMs) && outcome.durationMs >= 0 && outcome.durationMs < 5_000,
        `durationMs ${outcome.durationMs}`,
      );
      assert.equal(requestsTo(path).length, 1, 'exactly one request');
    });

    it('sends the body bytes and headers unchanged, as one POST', async () => {
      // Not valid UTF-8 on purpose: nothing may decode and re-encode the body on the way.
      const body = new Uint8Array([0x7b, 0xff, 0x00, 0xc3, 0x28, 0xe2, 0x82, 0xac, 0x7d]);
      const headers = {
        'content-type': 'application/json',
        'webhook-id': 'evt_abc',
        'webhook-timestamp': '1700000000',
        'webhook-signature': 'v1,AAAA v1,BBBB',
      };
      const path = fresh('exact');
      const outcome = await send(delivery(path, { body, headers }));
      assert.equal(outcome.status, 204);
      const received = requestsTo(path);
      assert.equal(received.length, 1);
      assert.equal(received[0]!.method, 'POST');
      assert.ok(Buffer.from(body).equals(received[0]!.body), 'the same bytes arrived');
      for (const [name, value] of Object.entries(headers)) assert.equal(received[0]!.headers[name], value, name);
    });

    it('keeps the first 2 KB of a long response body', async () => {
      const outcome = await send(delivery(fresh('big')));
      assert.equal(outcome.status, 200);
      assert.equal(outcome.responseBody, 'x'.repeat(2048));
    });

    it('reports a 500 as an outcome with its status and body, and does not retry it', async () => {
      const path = fresh('fail');
      const outcome = await send(delivery(path));
      assert.equal(outcome.status, 500);
      assert.equal(outcome.error, null);
      assert.equal(outcome.responseBody, 'boom');
      assert.equal(requestsTo(path).length, 1, 'retrying is the caller’s decision');
    });

    it('reports a 302 and never requests its Location', async () => {
      const path = fresh('redirect');
      const outcome = await send(delivery(path));
      assert.equal(outcome.status, 302);
      assert.equal(outcome.error, null);
      assert.equal(requestsTo(path).length, 1);
      assert.equal(requestsTo(`${path}-target`).length, 0, 'the redirect was not followed');
    });

    it('gives Retry-After in milliseconds: 7 seconds, or the time until an HTTP date', async () => {
      const throttled = await send(delivery(fresh('throttle')));
      assert.equal(throttled.status, 429);
      assert.equal(throttled.retryAfterMs, 7_000);
      // The date has whole seconds, so the delay is a little under two minutes.
      const at = new Date(Date.now() + 120_000).toUTCString();
      const unavailable = await send(delivery(`${fresh('unavailable')}?at=${encodeURIComponent(at)}`));
      assert.equal(unavailable.status, 503);
      assert.ok(
        unavailable.retryAfterMs !== null && unavailable.retryAfterMs > 110_000 && unavailable.retryAfterMs <= 120_000,
        String(unavailable.retryAfterMs),
      );
    });

    it('gives up on a receiver that never answers near timeoutMs: no status, an error', async () => {
      const path = fresh('hang');
      const started = Date.now();
      const outcome = await send(delivery(path, { timeoutMs: 300 }));
      assert.equal(outcome.status, null);
      assert.ok(outcome.error && outcome.error.length > 0, 'the error says what happened');
      assert.equal(outcome.responseBody, '');
      assert.ok(Date.now() - started < 3_000, `gave up after ${Date.now() - started} ms`);
      assert.ok(outcome.durationMs >= 250, `durationMs ${outcome.durationMs}`);
      assert.equal(requestsTo(path).length, 1, 'exactly one request');
    });

    it('reports a refused connection as an outcome: no status, an error', async () => {
      const outcome = await send({ ...delivery('/'), url: `https://localhost:${await closedPort()}/hook` });
      assert.equal(outcome.status, null);
      assert.ok(outcome.error && outcome.error.length > 0);
      assert.equal(outcome.retryAfterMs, null);
    });

    it('sends exactly one request per call when many calls run at once', async () => {
      const paths = Array.from({ length: 12 }, () => fresh('parallel'));
      const outcomes = await Promise.all(paths.map((path) => send(delivery(path))));
      assert.deepEqual(
        outcomes.map((outcome) => outcome.status),
        paths.map(() => 204),
      );
      assert.deepEqual(
        paths.map((path) => requestsTo(path).length),
        paths.map(() => 1),
      );
    });
  });
}
