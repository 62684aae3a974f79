import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  ApiError,
  AuthenticationError,
  createClient,
  InvalidRequestError,
  type EventStreamRetry,
  type VisualizerClient,
  type WebhookEvent,
} from '../clients/node/src/index.ts';
import { startGenerationApp, type GenerationApp } from './support/generation-app.ts';

describe('@visualizer/client events.stream against the service', () => {
  let g: GenerationApp;
  let client: VisualizerClient;

  before(async () => {
    g = await startGenerationApp();
    const { apiKey } = await g.app.tenants.createOrganization({ name: 'Streaming shop', credits: 10 });
    client = createClient({ apiKey: apiKey.key, baseUrl: g.app.url });
  });
  after(() => g.close());

  const create = (image: string) =>
    client.generations.create({
      mode: 'virtual-try-on',
      image,
      products: [{ productId: 'sku-1', productTitle: 'Red shirt', imageUrl: `${g.host.url}/product.png` }],
    });

  it('yields the events that happen once it is open, typed, filtered by type', async () => {
    // The signal bounds the test should the event never come: the loop then ends and the asserts say so.
    const stream = await client.events.stream({ types: ['generation.completed'], signal: AbortSignal.timeout(30_000) });
    const failed = await create(`${g.host.url}/missing`);
    const completed = await create(`${g.host.url}/photo.jpg`);
    const received: WebhookEvent[] = [];
    for await (const event of stream) {
      received.push(event);
      if (event.data.id === completed.id) break;
    }
    assert.ok(
      received.every((event) => event.type === 'generation.completed'),
      'only the type asked for',
    );
    assert.ok(!received.some((event) => event.data.id === failed.id));
    const event = received.at(-1)!;
    assert.equal(event.type, 'generation.completed');
    assert.equal(event.data.status, 'complete');
    assert.match(event.id, /^evt_/);
    assert.equal(stream.lastEventId, event.id);
    // The same event as the log and the webhooks carry.
    assert.deepEqual(await client.events.retrieve(event.id).then(({ deliveries: _, ...logged }) => logged), event);
  });

  it('refuses with typed errors before streaming', async () => {
    await assert.rejects(
      client.events.stream({ types: ['generation.started' as never] }),
      (error: unknown) => error instanceof InvalidRequestError && error.param === 'types',
    );
    const stranger = createClient({ apiKey: `visualizer_${'x'.repeat(32)}`, baseUrl: g.app.url });
    await assert.rejects(stranger.events.stream(), AuthenticationError);
  });
});

describe('@visualizer/client events.stream reconnecting', () => {
  const connections: Array<string | undefined> = [];
  let url: string;
  let close: () => Promise<void>;

  before(async () => {
    const event = (n: number) =>
      JSON.stringify({
        id: `evt_${n}`,
        type: 'generation.completed',
        createdAt: '2026-01-01T00:00:00.000Z',
        data: { id: `agen_${n}` },
      });
    // The first connection sends one event and ends (as at the service's time limit), the second
    // sends one and drops the connection, the third continues with a message split across writes.
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      connections.push(req.headers['last-event-id'] as string | undefined);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (connections.length === 1)
        return void res.end(`: stream open\n\nid: evt_1\nevent: generation.completed\ndata: ${event(1)}\n\n`);
      if (connections.length === 2) {
        res.write(`: stream open\n\nid: evt_2\nevent: generation.completed\ndata: ${event(2)}\n\n`);
        return void setTimeout(() => req.socket.destroy(), 50);
      }
      res.write(`id: evt_3\r\nevent: generation.completed\r\ndata: ${event(3).slice(0, 10)}`);
      setTimeout(() => res.write(`${event(3).slice(10)}\r\n\r\n`), 20);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())));
  });
  after(() => close());

  it('continues after the last event received, across an ended stream and a dropped connection', async () => {
    const stream = await createClient({ apiKey: 'visualizer_test', baseUrl: url }).events.stream({
      lastEventId: 'evt_0',
      signal: AbortSignal.timeout(30_000),
    });
    const ids: string[] = [];
    for await (const event of stream) {
      ids.push(event.id);
      if (ids.length === 3) stream.close();
    }
    assert.deepEqual(ids, ['evt_1', 'evt_2', 'evt_3']);
    assert.deepEqual(connections, ['evt_0', 'evt_1', 'evt_2']);
  });
});

describe('@visualizer/client events.stream while the service is away', () => {
  const connections: Array<string | undefined> = [];
  let url: string;
  let close: () => Promise<void>;
  const message = (n: number) =>
    `id: evt_${n}\nevent: generation.completed\ndata: {"id":"evt_${n}", "type":"generation.completed"}\n\n`;

  before(async () => {
    // Ends the first stream, refuses the next try with 503, then sends evt_1 again (as a proxy
    // replaying could) and evt_2, ends, and refuses the last try with 401 (the key was revoked).
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      connections.push(req.headers['last-event-id'] as string | undefined);
      const envelope = (status: number, type: string) =>
        void res
          .writeHead(status, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { type, code: 'test', message: `answered ${status}`, param: null } }));
      if (connections.length === 2) return envelope(503, 'api_error');
      if (connections.length === 4) return envelope(401, 'authentication_error');
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(connections.length === 1 ? message(1) : message(1) + message(2));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())));
  });
  after(() => close());

  it('reports each retry with a pause that grows while tries fail, skips a repeated event, and ends with a refusal retrying cannot fix', {
    timeout: 30_000,
  }, async () => {
    const retries: EventStreamRetry[] = [];
    let reconnections = 0;
    const client = createClient({ apiKey: 'visualizer_test', baseUrl: url, maxRetries: 0 });
    const stream = await client.events.streamMessages({
      onRetry: (retry) => retries.push(retry),
      onReconnect: () => (reconnections += 1),
    });
    const messages: Array<{ id: string; data: string }> = [];
    await assert.rejects(
      (async () => {
        for await (const { id, data } of stream) messages.push({ id, data });
      })(),
      (error: unknown) => error instanceof AuthenticationError && error.message === 'answered 401',
    );
    assert.deepEqual(
      messages.map(({ id }) => id),
      ['evt_1', 'evt_2'],
    );
    assert.equal(
      messages[0]!.data,
      '{"id":"evt_1", "type":"generation.completed"}',
      'the event as sent, byte for byte',
    );
    assert.deepEqual(connections, [undefined, 'evt_1', 'evt_1', 'evt_2']);
    assert.equal(reconnections, 1);
    // The pause doubles after the failed try and starts again at 1 s once a connection succeeds.
    assert.deepEqual(
      retries.map(({ delayMs }) => delayMs),
      [1_000, 2_000, 1_000],
    );
    assert.equal(retries[0]!.error, null, 'the service ended the stream');
    assert.ok(retries[1]!.error instanceof ApiError && retries[1]!.error.status === 503);
    assert.equal(retries[2]!.error, null);
    assert.equal(stream.lastEventId, 'evt_2');
  });
});
