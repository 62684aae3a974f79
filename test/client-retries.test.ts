import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  ApiError,
  ConnectionError,
  createClient,
  RateLimitError,
  type VisualizerClient,
} from '../clients/node/src/index.ts';
import { retryAfterMs } from '../clients/node/src/retry-after.ts';
import { recordingFetch } from '../clients/node/test/recording-fetch.ts';
import { startTestApp, type TestApp } from './support/app.ts';

describe('@visualizer/client retries a rate-limited request', () => {
  let app: TestApp;
  /** A key of its own for each test, so each starts with a full bucket. */
  const freshKey = async () => (await app.tenants.createOrganization({ name: 'Busy shop', credits: 10 })).apiKey.key;

  before(async () => {
    // One request at once, one more per second: a second request at once is a 429 with Retry-After: 1.
    app = await startTestApp({
      config: { rateLimits: { create: { perSecond: 1, burst: 1 }, read: { perSecond: 1, burst: 1 } } },
    });
  });
  after(() => app.close());

  it('waits out Retry-After and answers the retry', async () => {
    const recorder = recordingFetch();
    const client = createClient({ apiKey: await freshKey(), baseUrl: app.url, fetch: recorder.fetch });
    await client.credits.retrieve();
    const balance = await client.credits.retrieve();
    assert.equal(balance.balance, 10);
    assert.deepEqual(
      recorder.calls.map((call) => call.status),
      [200, 429, 200],
    );
  });

  it('retries a POST without an idempotency key too, since a 429 is refused before any work', async () => {
    const recorder = recordingFetch();
    const client = createClient({ apiKey: await freshKey(), baseUrl: app.url, fetch: recorder.fetch });
    await client.webhookEndpoints.list();
    const endpoint = await client.webhookEndpoints.create({ url: 'https://shop.example/hooks', enabledEvents: ['*'] });
    assert.match(endpoint.secret, /^whsec_/);
    assert.deepEqual(
      recorder.calls.map((call) => `${call.method} ${call.status}`),
      ['GET 200', 'POST 429', 'POST 201'],
    );
    assert.equal((await client.webhookEndpoints.list()).data.length, 1, 'one endpoint made');
  });

  it('gives up with a RateLimitError when out of retries', async () => {
    const recorder = recordingFetch();
    const client = createClient({ apiKey: await freshKey(), baseUrl: app.url, fetch: recorder.fetch, maxRetries: 0 });
    await client.credits.retrieve().catch(() => {});
    const error = await client.credits.retrieve().then(
      () => assert.fail('expected a 429'),
      (error: unknown) => error,
    );
    assert.ok(error instanceof RateLimitError);
    assert.equal(error.status, 429);
    assert.equal(error.type, 'rate_limit_error');
    assert.equal(error.code, 'rate_limited');
    assert.equal(error.retryAfterMs, 1_000);
    assert.equal(error.requestId, recorder.calls.at(-1)?.requestId);
  });

  it('does not wait longer than maxRetryDelayMs: a longer Retry-After is the answer', async () => {
    const recorder = recordingFetch();
    const client = createClient({
      apiKey: await freshKey(),
      baseUrl: app.url,
      fetch: recorder.fetch,
      maxRetryDelayMs: 500,
    });
    await client.credits.retrieve().catch(() => {});
    await assert.rejects(client.credits.retrieve(), RateLimitError);
    assert.equal(recorder.calls.filter((call) => call.status === 429).length, 1, 'not retried');
  });
});

/** A loopback server answering each request with the next scripted behaviour for its path. */
async function startStub() {
  type Behaviour = (req: IncomingMessage, res: ServerResponse) => void;
  const scripts = new Map<string, Behaviour[]>();
  const requests: Array<{
    method: string;
    path: string;
    idempotencyKey: string | undefined;
    authorization: string | undefined;
    body: string;
  }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      requests.push({
        method: req.method ?? '',
        path,
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
        authorization: req.headers.authorization,
        body: Buffer.concat(chunks).toString(),
      });
      const next = scripts.get(path)?.shift();
      if (next) next(req, res);
      else res.writeHead(500).end('no script');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (path: string, ...behaviours: Behaviour[]) => scripts.set(path, behaviours),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  (_req: IncomingMessage, res: ServerResponse) =>
    void res
      .writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_stub${status}`, ...headers })
      .end(JSON.stringify(body));
const unavailable = (retryAfter: string) =>
  json(
    503,
    {
      error: {
        type: 'api_error',
        code: 'database_unavailable',
        message: 'The database is not answering.',
        param: null,
      },
    },
    { 'retry-after': retryAfter },
  );
/** Drops the connection without an answer, as a crashing server or a flaky network does. */
const hangUp = (req: IncomingMessage) => void req.socket.destroy();

const generation = {
  id: 'agen_000000000000000000000001',
  object: 'generation',
  status: 'processing',
  mode: 'virtual-try-on',
  imageSize: '1K',
  imageUrl: null,
  imageVariants: null,
  products: [],
  hint: null,
  error: null,
  metadata: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  completedAt: null,
};

describe('@visualizer/client retries 503s and lost connections only when the request is safe to repeat', () => {
  let stub: Awaited<ReturnType<typeof startStub>>;
  let client: VisualizerClient;
  before(async () => {
    stub = await startStub();
    client = createClient({ apiKey: 'visualizer_test', conversionKey: 'viz_test', baseUrl: stub.url });
  });
  after(() => stub.close());
  const sent = (path: string) => stub.requests.filter((request) => request.path === path);

  it('retries a GET after a 503, honouring a Retry-After given as an HTTP date', async () => {
    stub.script(
      '/v1/generations/agen_1',
      unavailable(new Date(Date.now() + 1_000).toUTCString()),
      json(200, generation),
    );
    assert.equal((await client.generations.retrieve('agen_1')).id, generation.id);
    assert.equal(sent('/v1/generations/agen_1').length, 2);
  });

  it('retries a create with the same idempotency key on every attempt', async () => {
    stub.script('/v1/generations', unavailable('0'), hangUp, json(202, generation));
    const created = await client.generations.create({
      mode: 'virtual-try-on',
      image: 'https://shop.example/me.jpg',
      products: [],
    });
    assert.equal(created.id, generation.id);
    const keys = sent('/v1/generations').map((request) => request.idempotencyKey);
    assert.equal(keys.length, 3);
    assert.equal(new Set(keys).size, 1, 'one key for all three attempts');
    assert.match(keys[0]!, /^[0-9a-f-]{36}$/);
    assert.equal(new Set(sent('/v1/generations').map((request) => request.body)).size, 1, 'the same body each time');
  });

  it('does not repeat a POST without an idempotency key after a 503', async () => {
    stub.script('/v1/webhook-endpoints', unavailable('0'), json(201, {}));
    const error = await client.webhookEndpoints
      .create({ url: 'https://shop.example/hooks', enabledEvents: ['*'] })
      .then(
        () => assert.fail('expected a 503'),
        (error: unknown) => error,
      );
    assert.ok(error instanceof ApiError);
    assert.equal(error.status, 503);
    assert.equal(error.code, 'database_unavailable');
    assert.equal(error.retryAfterMs, 0);
    assert.equal(error.requestId, 'req_stub503');
    assert.equal(sent('/v1/webhook-endpoints').length, 1);
  });

  it('does not repeat a POST without an idempotency key after a lost connection', async () => {
    stub.script('/v1/stores', hangUp, json(201, {}));
    await assert.rejects(client.stores.create({ name: 'Outlet' }), ConnectionError);
    assert.equal(sent('/v1/stores').length, 1);
  });

  it('retries an order report after a lost connection: reporting an order again changes nothing', async () => {
    stub.script('/api/webhooks/orders', hangUp, json(200, { success: true }));
    const answer = await client.conversions.report({
      orderId: 'order-1',
      storeId: 'store_1',
      organizationId: 'org_1',
      visitorId: 'v',
      sessionId: 's',
      totalCents: 0,
      currency: 'USD',
      status: 'completed',
      orderCreatedAt: new Date(),
      items: [],
    });
    assert.deepEqual(answer, { success: true });
    const reports = sent('/api/webhooks/orders');
    assert.equal(reports.length, 2);
    assert.equal(reports[1]!.authorization, 'Bearer viz_test', 'the conversion key, not the API key');
    assert.equal(JSON.parse(reports[1]!.body).platform, 'custom');
  });

  it('abandons an attempt that is not answered within timeoutMs, and retries a GET', async () => {
    const impatient = createClient({ apiKey: 'visualizer_test', baseUrl: stub.url, timeoutMs: 300 });
    stub.script('/v1/widgets/wdg_1', () => {}, json(200, { id: 'wdg_1' }));
    assert.equal((await impatient.widgets.retrieve('wdg_1')).id, 'wdg_1');
    assert.equal(sent('/v1/widgets/wdg_1').length, 2);

    stub.script('/v1/widgets', () => {}, json(201, {}));
    await assert.rejects(
      impatient.widgets.create({
        storeId: 'store_1',
        mode: 'virtual-try-on',
        allowedOrigins: ['https://shop.example'],
      }),
      (error: unknown) => error instanceof ConnectionError && /no answer within 300 ms/.test(error.message),
    );
    assert.equal(sent('/v1/widgets').length, 1, 'a POST without a key is not repeated');
  });

  it('stops after maxRetries and surfaces the last answer', async () => {
    stub.script('/v1/credits', unavailable('0'), unavailable('0'), unavailable('0'), json(200, {}));
    await assert.rejects(client.credits.retrieve(), ApiError);
    assert.equal(sent('/v1/credits').length, 3, 'the first attempt and 2 retries');
  });

  it('surfaces an answer without the error envelope as an error of its status', async () => {
    stub.script(
      '/v1/events',
      (_req, res) => void res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>'),
    );
    await assert.rejects(client.events.list(), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.status, 502);
      assert.equal(error.code, 'unexpected_response');
      assert.match(error.message, /Bad gateway/);
      return true;
    });
  });
});

describe('Retry-After', () => {
  it('reads delay-seconds and HTTP dates, and ignores anything else', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(retryAfterMs('3', now), 3_000);
    assert.equal(retryAfterMs('Thu, 01 Jan 2026 00:00:05 GMT', now), 5_000);
    assert.equal(retryAfterMs('Wed, 31 Dec 2025 23:59:00 GMT', now), 0, 'a date in the past: at once');
    assert.equal(retryAfterMs('soon', now), null);
    assert.equal(retryAfterMs(null, now), null);
  });
});
