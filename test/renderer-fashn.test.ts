import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import * as v from 'valibot';
import {
  gradientPhoto,
  pluginContext,
  product,
  productImage,
  rejectsWithRenderError,
  renderEngineContract,
} from 'visualizer/testing';
import { createGuardedClient } from '../core/outbound/guarded-client.ts';
import type { RenderError, RenderEngine, RenderErrorCode, RenderRequest } from '../core/ports/render-engine.ts';
import fashnPlugin from '../plugins/renderer-fashn/index.ts';
import { createFashnRenderer, type FashnRendererOptions } from '../plugins/renderer-fashn/fashn-renderer.ts';
import {
  apiError,
  failed,
  prepareOutputs,
  startFakeFashn,
  tryonMaxSize,
  type FakeFashn,
} from './support/fake-fashn.ts';
import { testCertificates } from './support/https-server.ts';

const API_KEY = 'fa-TESTKEY-0123456789abcdefXYZ';

/** The guarded client as the kernel builds it, trusting the test CA and allowing only localhost (the fake CDN). */
async function outboundClient() {
  const certs = await testCertificates();
  return createGuardedClient({ allow: ['localhost'], ca: certs.caPem });
}

const renderError = (engine: RenderEngine, request: RenderRequest): Promise<RenderError> =>
  rejectsWithRenderError(engine.render(request));

const longSide = async (bytes: Uint8Array) => {
  const { width, height } = await sharp(bytes).metadata();
  return Math.max(width, height);
};

// ---------------------------------------------------------------------------------------------
// The port's contract, against the fake.

let contractFake: FakeFashn | undefined;
const contractEngine = async (timeoutMs: number) =>
  createFashnRenderer({
    apiKey: API_KEY,
    outbound: await outboundClient(),
    baseUrl: contractFake!.baseUrl,
    timeoutMs,
    pollIntervalMs: 5,
    outputFormat: 'jpeg',
  });
renderEngineContract({
  name: 'fashn (fake API on loopback)',
  create: async () => {
    contractFake = await startFakeFashn(API_KEY);
    // The contract's photo is 1200×1600; JPEG outputs keep the 4K download small.
    await prepareOutputs(1200, 1600, 'jpeg');
    return contractEngine(60_000);
  },
  createWithTimeout: contractEngine,
  dispose: () => contractFake?.close(),
  injectFault: (fault) => {
    contractFake!.fault = fault;
  },
});

// ---------------------------------------------------------------------------------------------

describe('fashn renderer', () => {
  let fake: FakeFashn;
  let outbound: Awaited<ReturnType<typeof outboundClient>>;
  let engine: RenderEngine;
  let request: RenderRequest;
  const create = (options: Partial<FashnRendererOptions> = {}) =>
    createFashnRenderer({
      apiKey: API_KEY,
      outbound,
      baseUrl: `${fake.baseUrl}/`,
      timeoutMs: 10_000,
      pollIntervalMs: 5,
      ...options,
    });

  before(async () => {
    fake = await startFakeFashn(API_KEY);
    outbound = await outboundClient();
    engine = create();
    request = {
      mode: 'virtual-try-on',
      imageSize: '1K',
      photo: await gradientPhoto(),
      products: [product(await productImage())],
      hint: null,
    };
  });
  afterEach(() => fake.reset());
  after(async () => {
    outbound.close();
    await fake.close();
  });

  it('declares virtual try-on only, at every size, and what kind of image it makes', () => {
    assert.equal(engine.name, 'fashn');
    assert.deepEqual(engine.supports, { modes: ['virtual-try-on'], sizes: ['1K', '2K', '4K'] });
    assert.deepEqual(engine.provenance, {
      action: 'c2pa.edited',
      digitalSourceType: 'compositeWithTrainedAlgorithmicMedia',
    });
  });

  it('sends the key as a Bearer token, tryon-max, the photo and the product as data URIs, the resolution and the hint as the prompt', async () => {
    const runs = fake.runs.length;
    const result = await engine.render({ ...request, imageSize: '2K', hint: 'tuck in the shirt' });
    const [run] = fake.runs.slice(runs);
    assert.ok(run);
    assert.equal(run.headers.authorization, `Bearer ${API_KEY}`);
    assert.match(String(run.headers['content-type']), /^application\/json/);
    assert.equal(run.body.model_name, 'tryon-max');
    const { model_image, product_image, ...rest } = run.body.inputs as Record<string, string>;
    assert.deepEqual(rest, { resolution: '2k', output_format: 'png', prompt: 'tuck in the shirt' });
    assert.match(model_image!, /^data:image\/jpeg;base64,/);
    assert.match(product_image!, /^data:image\/png;base64,/);
    const photo = await sharp(Buffer.from(model_image!.split(',')[1]!, 'base64')).metadata();
    assert.deepEqual([photo.width, photo.height], [1200, 1600]);
    // FASHN's 2K is a pixel budget (~4 MP), not a long side: the adapter scales its answer to 2048.
    assert.notEqual(Math.max(...tryonMaxSize(1200, 1600, '2k')), 2048);
    assert.equal(await longSide(result.image), 2048);
    assert.equal(result.contentType, 'image/png');
  });

  it('leaves the prompt out when the shopper gave no hint', async () => {
    const runs = fake.runs.length;
    await engine.render(request);
    assert.equal('prompt' in fake.runs[runs]!.body.inputs, false);
  });

  it('polls through starting, in_queue and processing, then downloads the output from the CDN over HTTPS', async () => {
    const [runs, downloads] = [fake.runs.length, fake.cdn.requests.length];
    const polls = fake.polls.length;
    await engine.render(request);
    assert.equal(fake.runs.length, runs + 1);
    const own = fake.polls.slice(polls);
    assert.equal(own.length, 4, 'starting, in_queue, processing, completed');
    assert.ok(own.every((poll) => poll.id === own[0]!.id));
    assert.equal(fake.cdn.requests.length, downloads + 1);
    assert.match(fake.cdn.requests.at(-1)!.path, /^\/outputs\/.+\.png$/);
  });

  it("puts three products on one after another, each run's output the next run's model image, and downloads only the last", async () => {
    const colors = ['#ff0000', '#00a000', '#0000ff'];
    const products = await Promise.all(
      colors.map(async (color, index) =>
        product(await productImage(color), { productId: index, productTitle: `Item ${index}` }),
      ),
    );
    const [runs, downloads] = [fake.runs.length, fake.cdn.requests.length];
    const result = await engine.render({ ...request, products });
    const own = fake.runs.slice(runs).map((run) => run.body.inputs as Record<string, string>);
    assert.equal(own.length, 3);
    assert.match(own[0]!.model_image!, /^data:image\/jpeg;base64,/);
    for (const index of [1, 2]) {
      assert.ok(
        own[index]!.model_image!.startsWith(`${fake.cdn.url}/outputs/`),
        `run ${index + 1} takes run ${index}'s output`,
      );
      assert.notEqual(own[index]!.model_image, own[index - 1]!.model_image);
    }
    const garments = await Promise.all(
      own.map(
        async (inputs) => (await sharp(Buffer.from(inputs.product_image!.split(',')[1]!, 'base64')).stats()).dominant,
      ),
    );
    assert.deepEqual(
      garments.map((dominant) => [dominant.r > 128, dominant.g > 64, dominant.b > 128]),
      [
        [true, false, false],
        [false, true, false],
        [false, false, true],
      ],
    );
    assert.equal(fake.cdn.requests.length, downloads + 1);
    assert.equal(await longSide(result.image), 1024);
  });

  it('with tryon-v1.6: garment_image, no resolution or prompt, 1K only (it draws 864×1296)', async () => {
    const v16 = create({ model: 'tryon-v1.6' });
    assert.deepEqual(v16.supports, { modes: ['virtual-try-on'], sizes: ['1K'] });
    const runs = fake.runs.length;
    const result = await v16.render({ ...request, hint: 'tuck in the shirt' });
    const run = fake.runs[runs]!;
    assert.equal(run.body.model_name, 'tryon-v1.6');
    assert.deepEqual(Object.keys(run.body.inputs).sort(), ['garment_image', 'model_image', 'output_format']);
    const metadata = await sharp(result.image).metadata();
    assert.deepEqual([metadata.width, metadata.height], [683, 1024]);
  });

  const runtimeErrors: Array<[string, RenderErrorCode, boolean]> = [
    ['ContentModerationError', 'content_blocked', false],
    ['ThirdPartyError', 'content_blocked', false],
    ['PoseError', 'photo_unusable', false],
    ['ImageLoadError', 'render_failed', false],
    ['InputValidationError', 'render_failed', false],
    ['LoRALoadError', 'render_failed', false],
    ['PipelineError', 'renderer_unavailable', true],
    ['3rdPartyProviderError', 'renderer_unavailable', true],
    ['InternalServerError', 'renderer_unavailable', true],
    ['SomethingNew', 'render_failed', false],
  ];
  for (const [name, code, transient] of runtimeErrors) {
    it(`reports a prediction failed with ${name} as ${code}, ${transient ? 'transient' : 'final'}, with FASHN's message`, async () => {
      fake.finish = (prediction) => failed(prediction.id, name, `details of ${name}`);
      const error = await renderError(engine, request);
      assert.equal(error.code, code, error.message);
      assert.equal(error.transient, transient);
      assert.ok(error.message.includes(name) && error.message.includes(`details of ${name}`), error.message);
    });
  }

  const apiErrors: Array<[number, string, RenderErrorCode, boolean, Record<string, string>?, number?]> = [
    [400, 'BadRequest', 'render_failed', false],
    [401, 'UnauthorizedAccess', 'renderer_unavailable', true],
    [403, 'Forbidden', 'renderer_unavailable', true],
    [404, 'NotFound', 'renderer_unavailable', true],
    [408, 'RequestTimeout', 'renderer_unavailable', true],
    [429, 'RateLimitExceeded', 'renderer_unavailable', true, { 'retry-after': '7' }, 7_000],
    [429, 'ConcurrencyLimitExceeded', 'renderer_unavailable', true, { 'retry-after-ms': '1500' }, 1_500],
    [429, 'OutOfCredits', 'renderer_unavailable', true],
    [500, 'InternalServerError', 'renderer_unavailable', true],
    [503, 'ServiceUnavailable', 'renderer_unavailable', true, { 'retry-after': '30' }, 30_000],
  ];
  for (const [status, name, code, transient, headers, retryAfterMs] of apiErrors) {
    it(`reports a run answered HTTP ${status} ${name} as ${code}${retryAfterMs ? `, retryAfterMs ${retryAfterMs}` : ''}`, async () => {
      fake.runReply = apiError(status, name, `${name} happened`, headers);
      const error = await renderError(engine, request);
      assert.equal(error.code, code, error.message);
      assert.equal(error.transient, transient);
      assert.equal(error.retryAfterMs, retryAfterMs);
      assert.ok(error.message.includes(`(HTTP ${status} ${name}): ${name} happened`), error.message);
    });
  }

  it('reports a wrong key, as FASHN answers it, as renderer_unavailable', async () => {
    const error = await renderError(create({ apiKey: 'fa-wrong-key' }), request);
    assert.equal(error.code, 'renderer_unavailable');
    assert.match(error.message, /401 UnauthorizedAccess/);
  });

  it('reports a run answered with an error instead of an id as render_failed', async () => {
    fake.runReply = { status: 200, body: { id: null, error: 'Model image is required' } };
    const error = await renderError(engine, request);
    assert.equal(error.code, 'render_failed');
    assert.match(error.message, /Model image is required/);
  });

  for (const [what, reply] of [
    ['a run answered with HTML', { status: 200, raw: '<html>bad gateway</html>' }],
    ['a run answered with JSON but no id', { status: 200, body: { error: null } }],
    ['a redirect', { status: 302, raw: '', headers: { location: 'https://elsewhere.example/' } }],
  ] as const) {
    it(`reports ${what} as renderer_unavailable, worth retrying`, async () => {
      fake.runReply = reply;
      const error = await renderError(engine, request);
      assert.equal(error.code, 'renderer_unavailable', error.message);
      assert.equal(error.transient, true);
    });
  }

  for (const [what, body, code] of [
    ['a status not documented', { id: 'x', status: 'exploded' }, 'renderer_unavailable'],
    ['completed without an output', { id: 'x', status: 'completed', output: [] }, 'renderer_unavailable'],
    ['a status answer that is not an object', ['completed'], 'renderer_unavailable'],
    ['canceled', { id: 'x', status: 'canceled', error: null }, 'renderer_unavailable'],
    [
      'time_out',
      { id: 'x', status: 'time_out', error: { name: 'PollingTimeout', message: 'Prediction polling timed out.' } },
      'render_timeout',
    ],
  ] as const) {
    it(`reports a prediction ${what} as ${code}, worth retrying`, async () => {
      fake.finish = () => ({ status: 200, body });
      const error = await renderError(engine, request);
      assert.equal(error.code, code, error.message);
      assert.equal(error.transient, true);
    });
  }

  it('reports a prediction FASHN no longer tracks (404 on its status) as renderer_unavailable, without polling again', async () => {
    fake.pollReplies = [apiError(404, 'NotFound', 'Prediction not found or no longer tracked')];
    const polls = fake.polls.length;
    const error = await renderError(engine, request);
    assert.equal(error.code, 'renderer_unavailable');
    assert.equal(fake.polls.length, polls + 1);
  });

  it('waits the Retry-After of a rate-limited status poll, then polls on to the result', async () => {
    fake.pollReplies = [apiError(429, 'RateLimitExceeded', 'Too many requests in the window.', { 'retry-after': '1' })];
    const polls = fake.polls.length;
    const result = await engine.render(request);
    assert.ok(result.image.byteLength > 0);
    const own = fake.polls.slice(polls);
    assert.equal(own.length, 5, 'the refused poll, then starting, in_queue, processing, completed');
    assert.ok(own[1]!.at - own[0]!.at >= 990, `waited ${own[1]!.at - own[0]!.at} ms`);
  });

  it('waits the Retry-After that comes with an in-progress status', async () => {
    fake.pollReplies = [
      {
        status: 200,
        body: { id: 'x', status: 'in_queue', output: null, error: null },
        headers: { 'retry-after': '1' },
      },
    ];
    const polls = fake.polls.length;
    await engine.render(request);
    const own = fake.polls.slice(polls);
    assert.ok(own[1]!.at - own[0]!.at >= 990, `waited ${own[1]!.at - own[0]!.at} ms`);
  });

  it('gives up at once when a poll asks for a wait beyond the time left, passing the wait on', async () => {
    fake.pollReplies = [
      apiError(429, 'RateLimitExceeded', 'Too many requests in the window.', { 'retry-after': '60' }),
    ];
    const started = Date.now();
    const error = await renderError(create({ timeoutMs: 5_000 }), request);
    assert.equal(error.code, 'renderer_unavailable');
    assert.equal(error.retryAfterMs, 60_000);
    assert.ok(Date.now() - started < 2_000);
  });

  it('asks again after a status poll answered 5xx, three times in a row at most, as the SDK does', async () => {
    fake.pollReplies = [apiError(500, 'InternalServerError', 'Internal server error.')];
    await engine.render(request);
    fake.pollReplies = Array.from({ length: 4 }, () => apiError(500, 'InternalServerError', 'Internal server error.'));
    const polls = fake.polls.length;
    const error = await renderError(engine, request);
    assert.equal(error.code, 'renderer_unavailable');
    assert.equal(fake.polls.length, polls + 4);
  });

  it('refuses an output URL that points to a private address, and never fetches it', async () => {
    fake.outputUrl = () => 'https://10.0.0.1/x';
    const downloads = fake.cdn.requests.length;
    const error = await renderError(engine, request);
    assert.equal(error.code, 'renderer_unavailable');
    assert.match(error.message, /blocked_address/);
    assert.equal(fake.cdn.requests.length, downloads);
  });

  it('refuses an output URL that is not HTTPS', async () => {
    fake.outputUrl = (id, format) =>
      `${fake.cdn.url.replace('https:', 'http:')}/outputs/${id}.${format === 'jpeg' ? 'jpg' : 'png'}`;
    const error = await renderError(engine, request);
    assert.equal(error.code, 'renderer_unavailable');
    assert.match(error.message, /not_https/);
  });

  it('reports an output URL that answers 404 as renderer_unavailable', async () => {
    fake.outputUrl = () => `${fake.cdn.url}/outputs/expired.png`;
    const error = await renderError(engine, request);
    assert.equal(error.code, 'renderer_unavailable');
    assert.match(error.message, /HTTP 404/);
  });

  it('never puts the key in an error message, even when FASHN echoes it', async () => {
    fake.runReply = apiError(401, 'UnauthorizedAccess', `Unauthorized: Invalid token Bearer ${API_KEY}`);
    const first = await renderError(engine, request);
    fake.finish = (prediction) => failed(prediction.id, 'ContentModerationError', `flagged for key ${API_KEY}`);
    const second = await renderError(engine, request);
    for (const error of [first, second]) {
      assert.ok(!error.message.includes(API_KEY), error.message);
      assert.match(error.message, /\[redacted\]/);
    }
  });

  it('stops polling at once when the request is aborted mid-poll', async () => {
    fake.stuck = true;
    const controller = new AbortController();
    const pending = renderError(create({ pollIntervalMs: 20 }), { ...request, signal: controller.signal });
    const polls = fake.polls.length;
    while (fake.polls.length < polls + 3) await sleep(5);
    const aborted = Date.now();
    controller.abort();
    const error = await pending;
    assert.equal(error.code, 'render_timeout');
    // The fake never finishes: any bound under the render's timeout says it stopped, loose enough for a loaded host.
    assert.ok(Date.now() - aborted < 5_000, `rejected ${Date.now() - aborted} ms after the abort`);
    const after = fake.polls.length;
    await sleep(100);
    assert.equal(fake.polls.length, after, 'no poll after the abort');
  });

  it('gives up after timeoutMs, polls included, with render_timeout, worth retrying', async () => {
    fake.stuck = true;
    const started = Date.now();
    const error = await renderError(create({ timeoutMs: 300 }), request);
    assert.equal(error.code, 'render_timeout');
    assert.equal(error.transient, true);
    assert.match(error.message, /300 ms/);
    assert.ok(Date.now() - started < 1_500);
  });

  it('reports an unreachable server as renderer_unavailable, worth retrying', async () => {
    const error = await renderError(create({ baseUrl: 'http://127.0.0.1:9' }), request);
    assert.equal(error.code, 'renderer_unavailable');
    assert.equal(error.transient, true);
  });
});

describe('fashn plugin', () => {
  const register = async (raw: unknown) => {
    const { renderer } = await fashnPlugin.register(pluginContext(v.parse(fashnPlugin.configSchema!, raw)));
    assert.ok(renderer);
    return renderer;
  };

  it('takes its key from options or FASHN_API_KEY, and refuses to start without one, naming the variable', async () => {
    const saved = process.env.FASHN_API_KEY;
    try {
      delete process.env.FASHN_API_KEY;
      await assert.rejects(register({}), /FASHN_API_KEY/);
      assert.equal((await register({ apiKey: 'k' })).name, 'fashn');
      process.env.FASHN_API_KEY = 'from-env';
      assert.equal((await register({})).name, 'fashn');
    } finally {
      if (saved === undefined) delete process.env.FASHN_API_KEY;
      else process.env.FASHN_API_KEY = saved;
    }
  });

  it('has the vendor defaults, and refuses a model FASHN has no try-on for', async () => {
    assert.deepEqual(fashnPlugin.provides, ['renderer']);
    assert.deepEqual(v.parse(fashnPlugin.configSchema!, {}), {
      baseUrl: 'https://api.fashn.ai',
      model: 'tryon-max',
      timeoutMs: 120_000,
      pollIntervalMs: 1_000,
      outputFormat: 'png',
    });
    assert.throws(() => v.parse(fashnPlugin.configSchema!, { model: 'product-to-model' }));
    assert.throws(() => v.parse(fashnPlugin.configSchema!, { timeoutMs: 0 }));
    assert.deepEqual((await register({ apiKey: 'k', model: 'tryon-v1.6' })).supports, {
      modes: ['virtual-try-on'],
      sizes: ['1K'],
    });
  });
});
