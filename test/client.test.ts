import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  AuthenticationError,
  createClient,
  GenerationFailedError,
  GenerationTimeoutError,
  InvalidRequestError,
  NotFoundError,
  VisualizerError,
  type CreateGenerationRequest,
  type VisualizerClient,
} from '../clients/node/src/index.ts';
import { recordingFetch } from '../clients/node/test/recording-fetch.ts';
import { startGenerationApp, type GenerationApp } from './support/generation-app.ts';

describe('@visualizer/client against the service', () => {
  let g: GenerationApp;
  let client: VisualizerClient;
  let recorder: ReturnType<typeof recordingFetch>;
  let apiKey: string;

  before(async () => {
    g = await startGenerationApp();
    const created = await g.app.tenants.createOrganization({ name: 'Client shop', credits: 100 });
    apiKey = created.apiKey.key;
    recorder = recordingFetch();
    client = createClient({ apiKey, baseUrl: `${g.app.url}/`, fetch: recorder.fetch });
  });
  after(() => g.close());

  /** A valid create body with images from the loopback image host. */
  const body = (overrides: Partial<CreateGenerationRequest> = {}): CreateGenerationRequest => ({
    mode: 'virtual-try-on',
    image: `${g.host.url}/photo.jpg`,
    products: [{ productId: 'sku-1', productTitle: 'Red shirt', imageUrl: `${g.host.url}/product.png` }],
    ...overrides,
  });

  it('creates a generation, waits for it and gets it complete with its images', async () => {
    const accepted = await client.generations.create(body({ metadata: { cart: 'c-1' } }));
    assert.equal(accepted.status, 'processing');
    assert.match(accepted.id, /^agen_/);
    const create = recorder.calls.find((call) => call.method === 'POST' && call.url.pathname === '/v1/generations');
    assert.match(create?.idempotencyKey ?? '', /^[0-9a-f-]{36}$/, 'a UUID idempotency key is sent when none is given');

    const done = await client.generations.wait(accepted.id);
    assert.equal(done.status, 'complete');
    assert.ok(done.imageUrl);
    assert.ok(done.imageVariants?.detail.url);
    assert.deepEqual(done.metadata, { cart: 'c-1' });
    assert.equal((await fetch(done.imageVariants.card.url)).status, 200);
  });

  it('resolves at once for a generation object that is already complete', async () => {
    const accepted = await client.generations.create(body());
    const done = await client.generations.wait(accepted);
    const before = recorder.calls.length;
    assert.equal((await client.generations.wait(done)).id, accepted.id);
    assert.equal(recorder.calls.length, before, 'no request for a terminal generation');
  });

  it('answers the same generation for a reused idempotency key, whatever the second body', async () => {
    const first = await client.generations.create(body(), { idempotencyKey: 'order-42-try-on' });
    const again = await client.generations.create(body({ hint: 'another body' }), {
      idempotencyKey: 'order-42-try-on',
    });
    assert.equal(again.id, first.id);
    assert.equal(again.hint, null);
    const other = await client.generations.create(body());
    assert.notEqual(other.id, first.id, 'a fresh key for each call without one');
  });

  it('rejects with GenerationFailedError carrying the failed generation', async () => {
    const accepted = await client.generations.create(body({ image: `${g.host.url}/missing` }));
    const error = await client.generations.wait(accepted.id).then(
      () => assert.fail('expected the wait to reject'),
      (error: unknown) => error,
    );
    assert.ok(error instanceof GenerationFailedError);
    assert.equal(error.code, 'image_fetch_failed');
    assert.equal(error.generation.status, 'failed');
    assert.equal(error.generation.id, accepted.id);
  });

  it('refuses to poll faster than the specification asks', async () => {
    await assert.rejects(client.generations.wait('agen_x', { intervalMs: 100 }), RangeError);
  });

  it('turns a 400 into an InvalidRequestError with type, code, param and request id', async () => {
    const error = await client.generations
      .create(
        body({
          products: [{ productId: 'sku-1', productTitle: 'Red shirt', imageUrl: 'http://insecure.example/x.png' }],
        }),
      )
      .then(
        () => assert.fail('expected a 400'),
        (error: unknown) => error,
      );
    assert.ok(error instanceof InvalidRequestError);
    assert.ok(error instanceof VisualizerError);
    assert.equal(error.status, 400);
    assert.equal(error.type, 'invalid_request_error');
    assert.equal(error.code, 'parameter_invalid');
    assert.equal(error.param, 'products[0].imageUrl');
    assert.match(error.message, /imageUrl/);
    assert.match(error.requestId ?? '', /^req_[0-9A-Za-z]{24}$/);
    assert.equal(error.requestId, recorder.calls.at(-1)?.requestId, 'the x-request-id of the answer');
  });

  it('turns a 401 into an AuthenticationError', async () => {
    const stranger = createClient({ apiKey: `visualizer_${'x'.repeat(32)}`, baseUrl: g.app.url });
    const error = await stranger.generations.list().then(
      () => assert.fail('expected a 401'),
      (error: unknown) => error,
    );
    assert.ok(error instanceof AuthenticationError);
    assert.equal(error.status, 401);
    assert.equal(error.type, 'authentication_error');
    assert.equal(error.code, 'invalid_api_key');
    assert.equal(error.param, null);
    assert.match(error.requestId ?? '', /^req_/);
  });

  it('turns a 404 into a NotFoundError', async () => {
    await assert.rejects(client.generations.retrieve(`agen_${'0'.repeat(24)}`), (error: unknown) => {
      assert.ok(error instanceof NotFoundError);
      assert.equal(error.code, 'resource_missing');
      return true;
    });
  });

  it('iterates every item of a list across pages', async () => {
    const created = new Set<string>();
    for (let i = 0; i < 5; i += 1) created.add((await client.generations.create(body())).id);
    const pagesBefore = recorder.calls.filter(
      (call) => call.url.pathname === '/v1/generations' && call.method === 'GET',
    ).length;

    const seen: string[] = [];
    for await (const generation of client.paginate('/v1/generations', { limit: 2 })) seen.push(generation.id);

    const pages = recorder.calls
      .filter((call) => call.url.pathname === '/v1/generations' && call.method === 'GET')
      .slice(pagesBefore);
    const total = (await client.generations.list({ limit: 100 })).data.length;
    assert.equal(seen.length, total, 'every generation once');
    assert.equal(new Set(seen).size, seen.length, 'no generation twice');
    for (const id of created) assert.ok(seen.includes(id));
    assert.equal(pages.length, Math.ceil(total / 2), 'two per page, no empty page at the end');
    assert.equal(pages[0]?.url.searchParams.get('starting_after'), null);
    assert.equal(pages[1]?.url.searchParams.get('starting_after'), seen[1]);
  });

  it('passes list filters through every page', async () => {
    const statuses = new Set<string>();
    for await (const generation of client.paginate('/v1/generations', { limit: 1, status: 'failed' }))
      statuses.add(generation.status);
    assert.deepEqual([...statuses], ['failed']);
  });
});

describe('@visualizer/client waiting on a generation that is never rendered', () => {
  let g: GenerationApp;
  let idle: VisualizerClient;
  // No workers: a generation stays processing, with no render left hanging at shutdown.
  before(async () => {
    g = await startGenerationApp({ workers: false });
    const { apiKey } = await g.app.tenants.createOrganization({ name: 'Idle shop', credits: 10 });
    idle = createClient({ apiKey: apiKey.key, baseUrl: g.app.url });
  });
  after(() => g.close());

  const body = (): CreateGenerationRequest => ({
    mode: 'room-visualizer',
    image: `${g.host.url}/photo.jpg`,
    products: [
      { productId: 42, productTitle: 'Oak table', imageUrl: `${g.host.url}/product.png`, dimensions: { width: 120 } },
    ],
  });

  it('rejects with GenerationTimeoutError while the generation is still processing', async () => {
    const accepted = await idle.generations.create(body());
    const error = await idle.generations.wait(accepted.id, { timeoutMs: 1_500 }).then(
      () => assert.fail('expected the wait to reject'),
      (error: unknown) => error,
    );
    assert.ok(error instanceof GenerationTimeoutError);
    assert.equal(error.generationId, accepted.id);
    assert.equal(error.generation?.status, 'processing');
  });

  it('stops waiting when its signal is aborted', async () => {
    const accepted = await idle.generations.create(body());
    const controller = new AbortController();
    const waiting = idle.generations.wait(accepted.id, { signal: controller.signal });
    controller.abort(new Error('shopper left'));
    await assert.rejects(waiting, { message: 'shopper left' });
  });
});
