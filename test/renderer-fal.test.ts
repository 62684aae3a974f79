import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import * as v from 'valibot';
import { createGuardedClient, type GuardedClient } from '../core/outbound/guarded-client.ts';
import { RenderError, type RenderEngine, type RenderRequest } from '../kit/plugin.ts';
import falPlugin from '../plugins/renderer-fal/index.ts';
import { createFalRenderer, provenanceOf } from '../plugins/renderer-fal/fal-renderer.ts';
import { resolveModel } from '../plugins/renderer-fal/models.ts';
import {
  gradientPhoto,
  pluginContext,
  product,
  productImage,
  rejectsWithRenderError,
  renderEngineContract,
} from 'visualizer/testing';
import {
  contentPolicyViolation,
  FAL_KEY,
  modelError,
  outputSize,
  requestError,
  startFakeFal,
  type FakeFal,
} from './support/fake-fal.ts';

const MODELS = {
  'virtual-try-on': 'fal-ai/fashn/tryon/v1.6',
  'room-visualizer': 'fal-ai/flux-pro/kontext/max/multi',
} as const;
// The key's halves, each of which must stay out of messages as the whole key does.
const [KEY_ID, KEY_SECRET] = FAL_KEY.split(':') as [string, string];

const guarded = (fake: FakeFal): GuardedClient => createGuardedClient({ allow: ['localhost'], ca: fake.caPem });

const renderError = (engine: RenderEngine, request: RenderRequest): Promise<RenderError> =>
  rejectsWithRenderError(engine.render(request));

// ---------------------------------------------------------------------------------------------
// The port's contract, against the fake on loopback.

let contractFake: FakeFal | undefined;
let contractClient: GuardedClient | undefined;
const contractEngine = (timeoutMs: number) =>
  createFalRenderer({
    apiKey: FAL_KEY,
    baseUrl: contractFake!.baseUrl,
    models: MODELS,
    timeoutMs,
    pollIntervalMs: 10,
    outbound: contractClient!,
  });
renderEngineContract({
  name: 'fal (fake queue API on loopback)',
  create: async () => {
    contractFake = await startFakeFal();
    contractClient = guarded(contractFake);
    return contractEngine(60_000);
  },
  createWithTimeout: contractEngine,
  dispose: async () => {
    contractClient?.close();
    await contractFake?.close();
  },
  injectFault: (fault) => {
    contractFake!.fault = fault;
  },
});

// ---------------------------------------------------------------------------------------------

describe('fal renderer', () => {
  let fake: FakeFal;
  let client: GuardedClient;
  let engine: RenderEngine;
  let request: RenderRequest;
  const create = (overrides: Partial<Parameters<typeof createFalRenderer>[0]> = {}) =>
    createFalRenderer({
      apiKey: FAL_KEY,
      baseUrl: `${fake.baseUrl}/`,
      models: MODELS,
      pollIntervalMs: 10,
      outbound: client,
      ...overrides,
    });

  before(async () => {
    fake = await startFakeFal();
    client = guarded(fake);
    engine = create();
    request = {
      mode: 'virtual-try-on',
      imageSize: '1K',
      photo: await gradientPhoto(),
      products: [product(await productImage())],
      hint: null,
    };
  });
  after(async () => {
    client.close();
    await fake.close();
  });

  it('declares the modes it has models for, and that its images are generated', () => {
    assert.deepEqual(engine.supports, { modes: ['virtual-try-on', 'room-visualizer'] });
    assert.deepEqual(
      create({ models: { 'room-visualizer': MODELS['room-visualizer'] } }).supports?.modes,
      ['room-visualizer'],
      'a mode with no model is not supported',
    );
    assert.deepEqual(create({ sizes: ['1K'] }).supports?.sizes, ['1K'], 'sizes can be limited');
    assert.deepEqual(engine.provenance, { action: 'c2pa.created', digitalSourceType: 'trainedAlgorithmicMedia' });
  });

  it("submits a try-on to FASHN's queue with the key, the photo and the garment as data URIs", async () => {
    fake.submissions.length = 0;
    fake.calls.length = 0;
    const result = await engine.render(request);
    const [sent] = fake.submissions;
    assert.equal(sent!.model, 'fal-ai/fashn/tryon/v1.6');
    assert.equal(sent!.headers.authorization, `Key ${FAL_KEY}`);
    assert.match(String(sent!.headers['content-type']), /^application\/json/);
    assert.deepEqual(Object.keys(sent!.input).sort(), [
      'category',
      'garment_image',
      'mode',
      'model_image',
      'output_format',
    ]);
    assert.equal(sent!.input.category, 'auto');
    const photo = String(sent!.input.model_image);
    assert.ok(photo.startsWith('data:image/jpeg;base64,'));
    assert.ok(
      Buffer.from(photo.slice(photo.indexOf(',') + 1), 'base64').equals(request.photo as Buffer),
      'the photo is sent unchanged',
    );
    assert.ok(String(sent!.input.garment_image).startsWith('data:image/png;base64,'));
    // Submit, then each documented status in turn, then the result.
    const id = fake.calls[1]!.split('/requests/')[1]!.split('/')[0]!;
    assert.deepEqual(fake.calls, [
      'POST /fal-ai/fashn/tryon/v1.6',
      `GET /fal-ai/fashn/tryon/v1.6/requests/${id}/status?logs=0`,
      `GET /fal-ai/fashn/tryon/v1.6/requests/${id}/status?logs=0`,
      `GET /fal-ai/fashn/tryon/v1.6/requests/${id}/status?logs=0`,
      `GET /fal-ai/fashn/tryon/v1.6/requests/${id}`,
    ]);
    const metadata = await sharp(result.image).metadata();
    assert.deepEqual(
      [metadata.width, metadata.height],
      [768, 1024],
      "FASHN's 864×1152 scaled to the long side paid for",
    );
  });

  it('puts two or three garments on one after another, each run taking the last output as its photo', async () => {
    fake.submissions.length = 0;
    fake.calls.length = 0;
    const products = [
      product(await productImage('#ff0000'), { productTitle: 'Shirt' }),
      product(await productImage('#00ff00'), { productTitle: 'Trousers' }),
      product(await productImage('#0000ff'), { productTitle: 'Hat' }),
    ];
    const result = await engine.render({ ...request, products });
    assert.equal(fake.submissions.length, 3, 'one run per garment');
    const [first, second, third] = fake.submissions.map((submission) => submission.input);
    assert.ok(String(first!.model_image).startsWith('data:image/jpeg;base64,'), 'the first run gets the photo');
    const garments = fake.submissions.map((submission) => String(submission.input.garment_image));
    assert.equal(new Set(garments).size, 3, 'each run gets its own garment');
    const results = fake.calls
      .filter((call) => /\/requests\/[\w-]+$/.test(call))
      .map((call) => call.split('/requests/')[1]);
    assert.match(
      String(second!.model_image),
      new RegExp(`^https://.+/files/${results[0]}\\.png$`),
      "the second run gets the first's output URL, not its bytes",
    );
    assert.match(String(third!.model_image), new RegExp(`/files/${results[1]}\\.png$`));
    const metadata = await sharp(result.image).metadata();
    assert.deepEqual([metadata.width, metadata.height], [768, 1024]);
  });

  it('sends room staging to FLUX Kontext multi: the photo then every product, and a prompt naming them', async () => {
    fake.submissions.length = 0;
    const products = [
      product(await productImage(), { productTitle: 'Oslo sofa' }),
      product(
        await sharp(await productImage('#0000ff'))
          .tiff()
          .toBuffer(),
        { productTitle: 'Arc lamp' },
      ),
    ];
    const result = await engine.render({
      ...request,
      mode: 'room-visualizer',
      imageSize: '2K',
      products,
      hint: 'warm\nevening light',
    });
    const [sent] = fake.submissions;
    assert.equal(sent!.model, 'fal-ai/flux-pro/kontext/max/multi');
    const urls = sent!.input.image_urls as string[];
    assert.deepEqual(
      urls.map((url) => url.slice(0, url.indexOf(';'))),
      ['data:image/jpeg', 'data:image/png', 'data:image/png'],
      'photo first; a TIFF goes as PNG',
    );
    assert.match(String(sent!.input.prompt), /"Oslo sofa", "Arc lamp"/);
    assert.match(String(sent!.input.prompt), /Styling guidance: warm evening light$/);
    const metadata = await sharp(result.image).metadata();
    assert.deepEqual([metadata.width, metadata.height], [1543, 2048], "Kontext's 880×1168 scaled to 2K");
  });

  it('names a model it does not know by a mapping of its input fields', async () => {
    fake.submissions.length = 0;
    const custom = create({
      models: {
        'virtual-try-on': {
          id: 'custom/tryon-model',
          photo: 'human_image_url',
          product: 'garment_image_url',
          extra: { sync_mode: false },
        },
      },
    });
    await custom.render(request);
    assert.deepEqual(Object.keys(fake.submissions[0]!.input).sort(), [
      'garment_image_url',
      'human_image_url',
      'sync_mode',
    ]);
    assert.throws(
      () => resolveModel('virtual-try-on', 'fal-ai/unknown-model'),
      /not one whose inputs the fal renderer knows/,
    );
    assert.throws(
      () => resolveModel('virtual-try-on', { id: 'custom/x', prompt: 'prompt' }),
      /needs a `photo` or `images` field/,
    );
  });

  it('waits as long as a poll answer’s Retry-After says, then goes on polling', async () => {
    fake.nextStatuses = [
      requestError(429, 'Rate limit exceeded, please retry later.', 'rate_limited', { 'retry-after': '1' }),
    ];
    const started = Date.now();
    const result = await engine.render(request);
    const waited = Date.now() - started;
    assert.ok(waited >= 1_000, `waited ${waited} ms for Retry-After: 1`);
    assert.ok(result.image.byteLength > 0);
  });

  it('bounds a poll’s Retry-After by the remaining timeout', async () => {
    fake.nextStatuses = [requestError(503, 'Service unavailable', 'runner_connection_error', { 'retry-after': '30' })];
    const started = Date.now();
    const error = await renderError(create({ timeoutMs: 400 }), request);
    assert.deepEqual([error.code, error.transient], ['render_timeout', true]);
    assert.ok(Date.now() - started < 2_000, 'it did not wait 30 s');
  });

  it('rides out a few failed polls (5xx, unreachable answers), as the SDK does', async () => {
    fake.nextStatuses = [
      requestError(502, 'The runner sent an incomplete response payload.', 'runner_incomplete_response'),
      requestError(504, 'Request timed out', 'request_timeout'),
    ];
    const result = await engine.render(request);
    assert.ok(result.image.byteLength > 0);
  });

  it('gives up on polls that keep failing, as renderer_unavailable with the last Retry-After', async () => {
    fake.nextStatuses = Array.from({ length: 6 }, () =>
      requestError(503, 'No runner could be allocated.', 'runner_scheduling_failure', { 'retry-after': '0' }),
    );
    const error = await renderError(engine, request);
    assert.deepEqual([error.code, error.transient, error.retryAfterMs], ['renderer_unavailable', true, 0]);
  });

  // Every failure fal documents, where each lands in the vocabulary.
  const submitFailures: [string, () => import('./support/fake-fal.ts').Reply, string, boolean, number?][] = [
    [
      '429 with Retry-After',
      () => requestError(429, 'Rate limit exceeded', 'rate_limited', { 'retry-after': '7' }),
      'renderer_unavailable',
      true,
      7_000,
    ],
    [
      '503 with an HTTP-date Retry-After',
      () =>
        requestError(503, 'No runner could be allocated.', 'runner_scheduling_failure', {
          'retry-after': new Date(Date.now() + 60_000).toUTCString(),
        }),
      'renderer_unavailable',
      true,
    ],
    [
      '500 runner_server_error',
      () => requestError(500, 'The runner encountered an internal server error.', 'runner_server_error'),
      'renderer_unavailable',
      true,
    ],
    [
      '504 request_timeout',
      () => requestError(504, 'Request timed out', 'request_timeout'),
      'renderer_unavailable',
      true,
    ],
    ['408', () => ({ status: 408, body: { detail: 'Request Timeout' } }), 'renderer_unavailable', true],
    [
      '401 (a wrong key)',
      () => ({ status: 401, body: { detail: 'No user found for Key ID and Secret' } }),
      'renderer_unavailable',
      true,
    ],
    [
      '403 (a locked account)',
      () => ({ status: 403, body: { detail: 'User is locked. Reason: Exhausted balance.' } }),
      'renderer_unavailable',
      true,
    ],
    [
      '404 (an unknown model)',
      () => ({ status: 404, body: { detail: "Application 'x' not found" } }),
      'renderer_unavailable',
      true,
    ],
    ['400 bad_request', () => requestError(400, 'Invalid timeout header', 'bad_request'), 'render_failed', false],
    [
      '422 validation error',
      () => modelError(422, 'garment_image', 'image_load_error', 'Failed to load the image.'),
      'render_failed',
      false,
    ],
    ['422 content_policy_violation', () => contentPolicyViolation('garment_image'), 'content_blocked', false],
    [
      '422 about the photo (no person found)',
      () => modelError(422, 'model_image', 'face_detection_error', 'Could not detect a person in the image.'),
      'photo_unusable',
      false,
    ],
    [
      '422 that fal marks X-Fal-Retryable: true',
      () => ({
        ...modelError(422, 'garment_image', 'file_download_error', 'Failed to download the file.'),
        headers: { 'x-fal-retryable': 'true' },
      }),
      'renderer_unavailable',
      true,
    ],
    [
      'a 200 that is not a queued request',
      () => ({ status: 200, body: { hello: 'world' } }),
      'renderer_unavailable',
      true,
    ],
    [
      'a 200 whose status URL is on another host',
      () => ({
        status: 200,
        body: { request_id: 'r', status_url: 'https://evil.example/status', response_url: 'https://evil.example/r' },
      }),
      'renderer_unavailable',
      true,
    ],
  ];
  for (const [what, reply, code, transient, retryAfterMs] of submitFailures) {
    it(`maps a submit answered ${what} to ${code}`, async () => {
      fake.nextSubmit = reply();
      const error = await renderError(engine, request);
      assert.deepEqual([error.code, error.transient], [code, transient], error.message);
      if (retryAfterMs !== undefined) assert.equal(error.retryAfterMs, retryAfterMs);
      if (what.startsWith('503'))
        assert.ok(
          error.retryAfterMs! > 50_000 && error.retryAfterMs! <= 60_000,
          `an HTTP-date Retry-After: ${error.retryAfterMs}`,
        );
    });
  }

  it("shows shops fal's short reason for a content refusal, never the key", async () => {
    fake.nextResult = () => contentPolicyViolation();
    const error = await renderError(engine, request);
    assert.equal(error.message, 'fal.ai refused the content: The content was flagged by a content checker.');
  });

  it('reports a photo fal cannot use, as the shop sees it', async () => {
    fake.nextResult = () =>
      modelError(422, 'model_image', 'face_detection_error', 'Could not detect a person in the image.');
    const error = await renderError(engine, request);
    assert.deepEqual(
      [error.code, error.transient, error.message],
      ['photo_unusable', false, 'fal.ai cannot use the photo: Could not detect a person in the image.'],
    );
  });

  it("reads an error about the first of Kontext multi's images as the photo's, and about a product's as not", async () => {
    const room = { ...request, mode: 'room-visualizer' as const };
    fake.nextResult = () => ({
      status: 422,
      body: { detail: [{ loc: ['body', 'image_urls', 0], msg: 'Image too small.', type: 'image_too_small' }] },
    });
    assert.equal((await renderError(engine, room)).code, 'photo_unusable');
    fake.nextResult = () => ({
      status: 422,
      body: { detail: [{ loc: ['body', 'image_urls', 1], msg: 'Image too small.', type: 'image_too_small' }] },
    });
    assert.equal((await renderError(engine, room)).code, 'render_failed');
  });

  it('reports an image the safety checker flagged (has_nsfw_concepts) as content_blocked', async () => {
    fake.nextResult = (url) => ({
      status: 200,
      body: {
        images: [{ url, width: 1024, height: 1024, content_type: 'image/png' }],
        has_nsfw_concepts: [true],
        seed: 1,
        timings: {},
        prompt: 'p',
      },
    });
    const error = await renderError(engine, { ...request, mode: 'room-visualizer' });
    assert.deepEqual([error.code, error.transient], ['content_blocked', false]);
  });

  it('reports a result with no image as render_failed, and an undocumented one as renderer_unavailable', async () => {
    fake.nextResult = () => ({ status: 200, body: { images: [] } });
    assert.equal((await renderError(engine, request)).code, 'render_failed');
    fake.nextResult = () => ({ status: 200, body: { output: 'somewhere' } });
    assert.equal((await renderError(engine, request)).code, 'renderer_unavailable');
    fake.nextResult = () => ({ status: 200, raw: 'not json' });
    assert.equal((await renderError(engine, request)).code, 'renderer_unavailable');
  });

  it('reports an undocumented status as renderer_unavailable', async () => {
    fake.nextStatuses = [{ status: 200, body: { status: 'EXPLODED' } }];
    const error = await renderError(engine, request);
    assert.deepEqual([error.code, error.transient], ['renderer_unavailable', true]);
  });

  it('refuses an output URL on a private address, through the guarded client', async () => {
    fake.nextResult = () => ({
      status: 200,
      body: { images: [{ url: 'https://10.0.0.1/x.png', width: 864, height: 1152, content_type: 'image/png' }] },
    });
    const error = await renderError(engine, request);
    assert.deepEqual([error.code, error.transient], ['renderer_unavailable', true]);
    assert.match(error.message, /10\.0\.0\.1.*private or reserved address/);
  });

  it('refuses an output URL that is not https', async () => {
    fake.nextResult = (url) => ({
      status: 200,
      body: { images: [{ url: url.replace('https:', 'http:'), width: 864, height: 1152 }] },
    });
    const error = await renderError(engine, request);
    assert.equal(error.code, 'renderer_unavailable');
    assert.match(error.message, /must use https/);
  });

  it('never puts the key, or either half of it, in a message', async () => {
    for (const echoed of [FAL_KEY, KEY_ID, KEY_SECRET]) {
      fake.nextSubmit = { status: 401, body: { detail: `Invalid key ${echoed}` } };
      const error = await renderError(engine, request);
      assert.ok(!error.message.includes(KEY_ID) && !error.message.includes(KEY_SECRET), error.message);
      assert.match(error.message, /\[redacted\]/);
    }
  });

  it('stops polling at once when the request is aborted mid-poll, and cancels the request at fal', async () => {
    fake.progression = Array.from({ length: 1000 }, () => 'IN_PROGRESS' as const);
    fake.cancelled.length = 0;
    try {
      const controller = new AbortController();
      const pending = create({ pollIntervalMs: 50 }).render({ ...request, signal: controller.signal });
      await fake.polled();
      controller.abort();
      const started = Date.now();
      const polls = () => fake.calls.filter((call) => call.includes('/status')).length;
      const pollsAtAbort = polls();
      const error = await pending.then(
        () => assert.fail('expected the render to fail'),
        (reason: unknown) => reason,
      );
      assert.ok(error instanceof RenderError, String(error));
      assert.deepEqual([error.code, error.transient], ['render_timeout', true]);
      assert.match(error.message, /aborted/);
      // Far under the render's timeout, and loose enough for a loaded host: the polls below say "at once".
      assert.ok(Date.now() - started < 5_000, 'it stopped at once');
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(polls(), pollsAtAbort, 'no poll after the abort');
      assert.equal(fake.cancelled.length, 1, 'PUT cancel_url, as the SDK does when it stops waiting');
    } finally {
      fake.progression = ['IN_QUEUE', 'IN_PROGRESS'];
    }
  });

  it('gives up after timeoutMs, polling included, with render_timeout', async () => {
    fake.progression = Array.from({ length: 1000 }, () => 'IN_QUEUE' as const);
    try {
      const started = Date.now();
      const error = await renderError(create({ timeoutMs: 300 }), request);
      assert.deepEqual([error.code, error.transient], ['render_timeout', true]);
      assert.match(error.message, /did not finish within 300 ms/);
      assert.ok(Date.now() - started < 1_000);
    } finally {
      fake.progression = ['IN_QUEUE', 'IN_PROGRESS'];
    }
  });

  it('reports an unreachable queue as renderer_unavailable', async () => {
    const closed = await startFakeFal();
    await closed.close();
    const error = await renderError(create({ baseUrl: closed.baseUrl }), request);
    assert.deepEqual([error.code, error.transient], ['renderer_unavailable', true]);
  });

  it("answers the real models' output sizes in the fake, never the long side paid for", () => {
    assert.deepEqual(outputSize('fal-ai/fashn/tryon/v1.6', { width: 1200, height: 1600 }), {
      width: 864,
      height: 1152,
    });
    assert.deepEqual(outputSize('fal-ai/flux-pro/kontext/max/multi', { width: 1200, height: 1600 }), {
      width: 880,
      height: 1168,
    });
  });
});

describe('fal provenance', () => {
  it('is generated media, unless a configured model keeps the photo’s pixels', () => {
    const generated = [
      resolveModel('virtual-try-on', 'fal-ai/fashn/tryon/v1.6'),
      resolveModel('room-visualizer', 'fal-ai/flux-pro/kontext'),
    ];
    assert.deepEqual(provenanceOf(generated), { action: 'c2pa.created', digitalSourceType: 'trainedAlgorithmicMedia' });
    const inpainting = {
      id: 'custom/inpaint-tryon',
      photo: 'human_image_url',
      product: 'garment_image_url',
      keepsPhotoPixels: true,
    };
    assert.deepEqual(provenanceOf([...generated, inpainting]), {
      action: 'c2pa.edited',
      digitalSourceType: 'compositeWithTrainedAlgorithmicMedia',
    });
  });
});

describe('fal plugin', () => {
  const register = async (raw: unknown) => {
    const { renderer } = await falPlugin.register(pluginContext(v.parse(falPlugin.configSchema!, raw)));
    assert.ok(renderer);
    return renderer;
  };

  it('takes its key from options or FAL_KEY, and refuses to start without one, naming the variable', async () => {
    const saved = process.env.FAL_KEY;
    try {
      delete process.env.FAL_KEY;
      await assert.rejects(async () => register({}), /FAL_KEY/);
      assert.equal((await register({ apiKey: 'k' })).name, 'fal');
      process.env.FAL_KEY = 'from-env';
      assert.equal((await register({})).name, 'fal');
    } finally {
      if (saved === undefined) delete process.env.FAL_KEY;
      else process.env.FAL_KEY = saved;
    }
  });

  it('defaults to the vendor, a whole-render timeout and a model per mode; a mode may be left out', () => {
    assert.deepEqual(v.parse(falPlugin.configSchema!, {}), {
      baseUrl: 'https://queue.fal.run',
      timeoutMs: 120_000,
      pollIntervalMs: 500,
      models: { 'virtual-try-on': 'fal-ai/fashn/tryon/v1.6', 'room-visualizer': 'fal-ai/flux-pro/kontext/max/multi' },
    });
    assert.deepEqual(
      v.parse(falPlugin.configSchema!, { models: { 'room-visualizer': 'fal-ai/flux-pro/kontext' } }).models,
      { 'room-visualizer': 'fal-ai/flux-pro/kontext' },
    );
    assert.throws(() => v.parse(falPlugin.configSchema!, { models: {} }), /at least one mode/);
    assert.throws(() => v.parse(falPlugin.configSchema!, { models: { 'room-visualizer': 'not a model' } }));
    assert.throws(() => v.parse(falPlugin.configSchema!, { timeoutMs: 0 }));
  });

  it('refuses at start a model it does not know that has no mapping', async () => {
    await assert.rejects(
      async () => register({ apiKey: 'k', models: { 'virtual-try-on': 'fal-ai/somebody-else/tryon' } }),
      /virtual-try-on.*name it with a mapping/,
    );
  });
});
