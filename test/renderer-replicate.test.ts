import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import * as v from 'valibot';
import { createGuardedClient } from '../core/outbound/guarded-client.ts';
import type { RenderError, AnyPlugin, GuardedClient, RenderEngine, RenderRequest } from '../kit/plugin.ts';
import replicatePlugin from '../plugins/renderer-replicate/index.ts';
import {
  createReplicateRenderer,
  type ReplicateRendererOptions,
} from '../plugins/renderer-replicate/replicate-renderer.ts';
import {
  gradientPhoto,
  pluginContext,
  product,
  productImage,
  rejectsWithRenderError,
  renderEngineContract,
} from 'visualizer/testing';
import {
  FAKE_TOKEN,
  IDM_VTON_VERSION,
  SENSITIVE,
  startFakeReplicate,
  type FakeReplicate,
  type Reply,
  type Script,
} from './support/fake-replicate.ts';
import { testCertificates } from './support/https-server.ts';

const models = {
  'room-visualizer': 'black-forest-labs/flux-kontext-pro',
  'virtual-try-on': `cuuupid/idm-vton:${IDM_VTON_VERSION}`,
};

async function guardedClient(): Promise<GuardedClient> {
  const certs = await testCertificates();
  return createGuardedClient({ allow: ['localhost'], ca: certs.caPem });
}

const renderError = (engine: RenderEngine, request: RenderRequest): Promise<RenderError> =>
  rejectsWithRenderError(engine.render(request));

const waitFor = async (condition: () => boolean, what: string, ms = 3_000) => {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

// ---------------------------------------------------------------------------------------------
// The port's contract, against the fake; every fault as Replicate answers it.

let contractFake: FakeReplicate | undefined;
let contractClient: GuardedClient | undefined;
const contractEngine = (timeoutMs: number) =>
  createReplicateRenderer({
    apiKey: FAKE_TOKEN,
    baseUrl: contractFake!.baseUrl,
    models,
    timeoutMs,
    pollIntervalMs: 20,
    outbound: contractClient!,
  });
renderEngineContract({
  name: 'replicate (fake API on loopback)',
  create: async () => {
    contractFake = await startFakeReplicate();
    contractClient = await guardedClient();
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

describe('replicate renderer', () => {
  let fake: FakeReplicate;
  let outbound: GuardedClient;
  let engine: RenderEngine;
  let request: RenderRequest;
  let roomRequest: RenderRequest;
  const engineWith = (overrides: Partial<ReplicateRendererOptions> = {}) =>
    createReplicateRenderer({
      apiKey: FAKE_TOKEN,
      baseUrl: `${fake.baseUrl}/`,
      models,
      pollIntervalMs: 20,
      timeoutMs: 10_000,
      outbound,
      ...overrides,
    });
  /** The next prediction runs as `script`. */
  const next = (script: Script) => {
    fake.script = script;
  };
  /** Answers the API requests `matching` with `reply` (once each while `times` lasts), the others as the fake does. */
  const answer = (matching: (method: string, path: string) => boolean, reply: Reply, times = Infinity) => {
    let left = times;
    fake.intercept = (sent) => (left > 0 && matching(sent.method, sent.path) ? (left--, reply) : undefined);
  };
  const creating = (method: string, path: string) => method === 'POST' && path.endsWith('/predictions');
  const polling = (method: string, path: string) => method === 'GET' && path.startsWith('/v1/predictions/');

  before(async () => {
    fake = await startFakeReplicate();
    outbound = await guardedClient();
    engine = engineWith();
    const photo = await gradientPhoto();
    request = {
      mode: 'virtual-try-on',
      imageSize: '1K',
      photo,
      products: [product(await productImage(), { productTitle: 'Red linen shirt' })],
      hint: null,
    };
    roomRequest = {
      ...request,
      mode: 'room-visualizer',
      products: [
        product(await productImage(), {
          productTitle: 'Oslo sofa',
          dimensions: { width: 200, height: 90, depth: 95, unit: 'cm' },
        }),
      ],
      hint: 'warm evening light',
    };
  });
  after(async () => {
    outbound.close();
    await fake.close();
  });
  const reset = () => {
    fake.requests.length = 0;
    fake.intercept = null;
    fake.script = null;
    fake.syncFinishes = false;
  };

  describe('requests', () => {
    it("creates an official model's prediction by owner/name: Bearer token, Prefer: wait, Cancel-After, the input fields of its mapping", async () => {
      reset();
      const result = await engine.render(roomRequest);
      const [created, ...polls] = fake.requests;
      assert.equal(created!.method, 'POST');
      assert.equal(created!.path, '/v1/models/black-forest-labs/flux-kontext-pro/predictions');
      assert.equal(created!.headers.authorization, `Bearer ${FAKE_TOKEN}`);
      assert.equal(created!.headers['content-type'], 'application/json');
      assert.match(String(created!.headers.prefer), /^wait=(\d+)$/);
      const wait = Number(String(created!.headers.prefer).slice('wait='.length));
      assert.ok(wait >= 1 && wait <= 10, `waits at most the time left (10 s), got ${wait}`);
      assert.equal(created!.headers['cancel-after'], '10s', "Replicate's own deadline is ours");
      const body = created!.body as { version?: string; input: Record<string, unknown> };
      assert.equal(body.version, undefined, 'no version: the model runs at its latest');
      assert.deepEqual(Object.keys(body.input).sort(), ['aspect_ratio', 'input_image', 'output_format', 'prompt']);
      assert.equal(body.input.aspect_ratio, 'match_input_image');
      assert.match(String(body.input.input_image), /^data:image\/jpeg;base64,/);
      const sent = await sharp(Buffer.from(String(body.input.input_image).split(',')[1]!, 'base64')).metadata();
      assert.deepEqual([sent.width, sent.height], [1200, 1600], 'the photo as it is');
      assert.match(
        String(body.input.prompt),
        /photo of a room[\s\S]*"Oslo sofa", real size width 200 cm, height 90 cm, depth 95 cm[\s\S]*Styling guidance: warm evening light$/,
      );
      assert.doesNotMatch(
        String(body.input.prompt),
        /\(image 2\)/,
        'Kontext takes one image: the sofa is described, not shown',
      );
      assert.ok(
        polls.length >= 2 &&
          polls.every(
            (poll) =>
              poll.method === 'GET' &&
              /^\/v1\/predictions\/fake\w+$/.test(poll.path) &&
              poll.headers.authorization === `Bearer ${FAKE_TOKEN}`,
          ),
      );
      const output = fake.files.requests.at(-1)!;
      assert.match(
        output.path,
        /^\/xezq\/fake\w+\/tmp\d+\.png$/,
        'the output is downloaded from the URL in the answer',
      );
      assert.equal(output.headers.authorization, undefined, 'the token never goes to the output host');
      assert.ok(result.image.byteLength > 0);
    });

    it("creates a community model's prediction by version at /v1/predictions", async () => {
      reset();
      await engine.render({
        ...request,
        products: [product(await productImage('#0000ff'), { productTitle: 'Blue "denim" jacket' })],
      });
      const created = fake.requests[0]!;
      assert.equal(created.path, '/v1/predictions');
      const body = created.body as { version: string; input: Record<string, unknown> };
      assert.equal(body.version, IDM_VTON_VERSION);
      assert.deepEqual(Object.keys(body.input).sort(), ['garm_img', 'garment_des', 'human_img']);
      assert.match(String(body.input.human_img), /^data:image\/jpeg;base64,/);
      assert.match(String(body.input.garm_img), /^data:image\/png;base64,/);
      assert.equal(body.input.garment_des, 'Blue "denim" jacket');
    });

    it('puts more garments than the model has fields on one prediction after another, each taking the last output as its photo', async () => {
      reset();
      const three = await Promise.all(
        ['#ff0000', '#00a000', '#0000ff'].map(async (color, index) =>
          product(await productImage(color), { productTitle: `Item ${index}` }),
        ),
      );
      const result = await engine.render({ ...request, products: three });
      const created = fake.requests
        .filter((sent) => sent.method === 'POST' && sent.path === '/v1/predictions')
        .map((sent) => (sent.body as { input: Record<string, string> }).input);
      assert.equal(created.length, 3, 'one prediction per garment');
      assert.match(created[0]!.human_img!, /^data:image\/jpeg;base64,/, 'the first gets the photo');
      assert.deepEqual(
        created.map((input) => input.garment_des),
        ['Item 0', 'Item 1', 'Item 2'],
        'each describes its own garment',
      );
      assert.equal(new Set(created.map((input) => input.garm_img)).size, 3);
      assert.match(
        created[1]!.human_img!,
        new RegExp(`^${fake.files.url}/`),
        "the second gets the first's output URL, not its bytes",
      );
      assert.notEqual(created[2]!.human_img, created[1]!.human_img);
      assert.deepEqual(
        await sharp(result.image)
          .metadata()
          .then((m) => [m.width, m.height]),
        [768, 1024],
      );
    });

    it('sends the photo and every product in one array to a model that takes a list of images', async () => {
      reset();
      const nano = engineWith({ models: { 'virtual-try-on': 'google/nano-banana' } });
      const three = await Promise.all(
        ['#ff0000', '#00a000', '#0000ff'].map(async (color, index) =>
          product(await productImage(color), { productTitle: `Item ${index}` }),
        ),
      );
      await nano.render({ ...request, products: three });
      const input = (fake.requests[0]!.body as { input: { image_input: string[]; prompt: string } }).input;
      assert.equal(input.image_input.length, 4);
      assert.match(input.image_input[0]!, /^data:image\/jpeg;base64,/, 'the photo first');
      assert.ok(input.image_input.slice(1).every((uri) => uri.startsWith('data:image/png;base64,')));
      assert.match(input.prompt, /"Item 0" \(image 2\)[\s\S]*"Item 2" \(image 4\)/);
    });

    it('uploads an image over 256 KB through the files API, and deletes it once the prediction is done', async () => {
      reset();
      const noisy = randomBytes(800 * 800 * 3);
      const large = await sharp(noisy, { raw: { width: 800, height: 800, channels: 3 } })
        .png()
        .toBuffer();
      assert.ok(large.length > 256 * 1024);
      await engine.render({ ...request, products: [product(large)] });
      const upload = fake.requests.find((sent) => sent.path === '/v1/files')!;
      assert.equal(upload.method, 'POST');
      assert.match(String(upload.headers['content-type']), /^multipart\/form-data; boundary=/);
      assert.equal(upload.headers.authorization, `Bearer ${FAKE_TOKEN}`);
      assert.deepEqual((upload.body as { content: { type: string; size: number } }).content.type, 'image/png');
      const input = (
        fake.requests.find((sent) => sent.path === '/v1/predictions')!.body as { input: Record<string, string> }
      ).input;
      assert.match(
        input.garm_img!,
        new RegExp(`^${fake.files.url}/uploads/file\\d+$`),
        'the product goes by its file URL',
      );
      assert.match(input.human_img!, /^data:/, 'the photo, under 256 KB, inline');
      await waitFor(() => fake.deletedFiles.length === 1, 'the upload to be deleted');
    });
  });

  describe('polling', () => {
    it("polls through every status until it succeeds, then scales the model's ~1 MP image to the size paid for", async () => {
      reset();
      next({ statuses: ['starting', 'starting', 'processing', 'processing'] });
      const result = await engine.render(roomRequest);
      assert.equal(
        fake.requests.filter((sent) => sent.method === 'GET').length,
        4,
        'one poll per status after the first',
      );
      const { width, height } = await sharp(result.image).metadata();
      // Kontext makes 880×1184 from a 3:4 photo.
      assert.deepEqual([width, height], [Math.round((880 * 1024) / 1184), 1024]);
      assert.equal(result.contentType, 'image/png');
    });

    it('takes a prediction that finished within Prefer: wait without polling', async () => {
      reset();
      fake.syncFinishes = true;
      const result = await engine.render({ ...request, imageSize: '2K' });
      assert.equal(fake.requests.length, 1, 'only the create');
      const { width, height } = await sharp(result.image).metadata();
      assert.deepEqual([width, height], [1536, 2048], "IDM-VTON's 768×1024, scaled up to 2K");
    });

    it('takes the first URL of an array output, and a data URI output as it is', async () => {
      reset();
      next({ end: { status: 'succeeded', output: (url) => [url, `${url}?second`] } });
      await engine.render(request);
      assert.ok(!fake.files.requests.some((sent) => sent.path.endsWith('?second')));
      const png = await sharp({ create: { width: 600, height: 800, channels: 3, background: '#123456' } })
        .png()
        .toBuffer();
      next({ end: { status: 'succeeded', output: () => `data:image/png;base64,${png.toString('base64')}` } });
      const result = await engine.render(request);
      const { data } = await sharp(result.image).raw().toBuffer({ resolveWithObject: true });
      assert.deepEqual([...data.subarray(0, 3)], [0x12, 0x34, 0x56]);
    });

    it("waits as long as a poll's Retry-After says, then polls again", async () => {
      reset();
      answer(
        polling,
        {
          status: 429,
          headers: { 'retry-after': '1' },
          body: { detail: 'Request was throttled. Your rate limit resets in ~1s.' },
        },
        1,
      );
      const result = await engine.render(request);
      const polls = fake.requests.filter((sent) => sent.method === 'GET');
      assert.ok(polls.length >= 2);
      assert.ok(polls[1]!.at - polls[0]!.at >= 950, `polled again after ${polls[1]!.at - polls[0]!.at} ms`);
      assert.ok(result.image.byteLength > 0);
    });

    it("gives up at once when a poll's Retry-After outlasts its timeout, passing the wait on, and cancels", async () => {
      reset();
      answer(polling, { status: 503, headers: { 'retry-after': '30' }, raw: 'Service Unavailable' });
      const started = Date.now();
      const error = await renderError(engineWith({ timeoutMs: 2_000 }), request);
      assert.deepEqual([error.code, error.transient, error.retryAfterMs], ['renderer_unavailable', true, 30_000]);
      assert.ok(Date.now() - started < 1_500, 'it did not sit out the timeout');
      await waitFor(
        () => fake.requests.some((sent) => sent.method === 'POST' && sent.path.endsWith('/cancel')),
        'the cancel',
      );
    });

    it('gives up after five failed polls in a row', async () => {
      reset();
      answer(polling, { status: 502, raw: '<html>Bad Gateway</html>' });
      const error = await renderError(engine, request);
      assert.deepEqual([error.code, error.transient], ['renderer_unavailable', true]);
      assert.equal(fake.requests.filter((sent) => sent.method === 'GET').length, 5);
    });

    it('does not poll again when a poll is refused for good', async () => {
      reset();
      answer(polling, {
        status: 401,
        body: { title: 'Unauthenticated', detail: 'You did not pass a valid authentication token', status: 401 },
      });
      const error = await renderError(engine, request);
      assert.deepEqual([error.code, error.transient], ['renderer_unavailable', true]);
      assert.equal(fake.requests.filter((sent) => sent.method === 'GET').length, 1);
    });

    it('stops polling at once when the request is aborted, and cancels the prediction', async () => {
      reset();
      next({ statuses: Array(500).fill('processing') });
      const controller = new AbortController();
      const pending = engine.render({ ...request, signal: controller.signal });
      await waitFor(() => fake.requests.some((sent) => sent.method === 'GET'), 'a poll');
      const aborted = Date.now();
      controller.abort();
      const error = await renderError({ name: 'wrapped', render: () => pending }, request);
      assert.deepEqual([error.code, error.transient], ['render_timeout', true]);
      // Far under the 500 polls it would otherwise sit through, and loose enough for a loaded host.
      assert.ok(Date.now() - aborted < 5_000, 'rejected soon after the abort');
      await waitFor(
        () =>
          fake.requests.some(
            (sent) => sent.method === 'POST' && /^\/v1\/predictions\/fake\w+\/cancel$/.test(sent.path),
          ),
        'the cancel',
      );
      const polls = fake.requests.filter((sent) => sent.method === 'GET').length;
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(fake.requests.filter((sent) => sent.method === 'GET').length, polls, 'no poll after the abort');
    });

    it('ends its own timeout as render_timeout, and cancels the prediction', async () => {
      reset();
      next({ statuses: Array(500).fill('starting') });
      const error = await renderError(engineWith({ timeoutMs: 300 }), request);
      assert.deepEqual([error.code, error.transient], ['render_timeout', true]);
      assert.match(error.message, /within 300 ms/);
      await waitFor(() => fake.requests.some((sent) => sent.path.endsWith('/cancel')), 'the cancel');
    });
  });

  describe("maps each of Replicate's failures", () => {
    const problem = (status: number, title: string, detail: string): Reply => ({
      status,
      body: { title, detail, status },
    });
    const httpCases: [string, Reply, [string, boolean]][] = [
      ['400 bad request', problem(400, 'Bad request', 'Malformed body'), ['render_failed', false]],
      [
        '401 a token Replicate does not know',
        problem(401, 'Unauthenticated', 'You did not pass a valid authentication token'),
        ['renderer_unavailable', true],
      ],
      [
        '402 no credit',
        problem(402, 'Insufficient credit', 'You have insufficient credit to run this model.'),
        ['renderer_unavailable', true],
      ],
      [
        '403 no permission',
        problem(403, 'Forbidden', 'You do not have permission to run this model.'),
        ['renderer_unavailable', true],
      ],
      ['408 request timeout', { status: 408, raw: 'Request Timeout' }, ['renderer_unavailable', true]],
      [
        '422 input validation',
        problem(422, 'Input validation failed', "- input.input_image: Does not match format 'uri'"),
        ['render_failed', false],
      ],
      ['500', { status: 500, body: { detail: 'Internal server error' } }, ['renderer_unavailable', true]],
      ['502', { status: 502, raw: '<html>Bad Gateway</html>' }, ['renderer_unavailable', true]],
      ['503', { status: 503, raw: 'Service Unavailable' }, ['renderer_unavailable', true]],
      ['504', { status: 504, raw: 'Gateway Timeout' }, ['renderer_unavailable', true]],
      [
        'a redirect',
        { status: 302, headers: { location: 'https://elsewhere.example/' }, raw: '' },
        ['renderer_unavailable', true],
      ],
      [
        'a 201 that is not a prediction',
        { status: 201, body: { id: '../../etc', status: 'starting' } },
        ['renderer_unavailable', true],
      ],
      [
        'a 201 with an undocumented status',
        { status: 201, body: { id: 'abc', status: 'queued' } },
        ['renderer_unavailable', true],
      ],
    ];
    for (const [what, reply, expected] of httpCases) {
      it(`creating: ${what}`, async () => {
        reset();
        answer(creating, reply);
        const error = await renderError(engine, request);
        assert.deepEqual([error.code, error.transient], expected, error.message);
      });
    }

    it('429 with Retry-After in seconds or as an HTTP date: retryAfterMs', async () => {
      reset();
      answer(creating, {
        status: 429,
        headers: { 'retry-after': '12' },
        body: { detail: 'Request was throttled. Your rate limit resets in ~12s.' },
      });
      const error = await renderError(engine, request);
      assert.deepEqual([error.code, error.transient, error.retryAfterMs], ['renderer_unavailable', true, 12_000]);
      assert.match(error.message, /HTTP 429\): Request was throttled/);
      answer(creating, {
        status: 503,
        headers: { 'retry-after': new Date(Date.now() + 60_000).toUTCString() },
        raw: 'Service Unavailable',
      });
      const dated = await renderError(engine, request);
      assert.ok(dated.retryAfterMs! > 55_000 && dated.retryAfterMs! <= 60_000, String(dated.retryAfterMs));
    });

    it("an unknown model (404) and a version that is not there or not ours (422) are the operator's to fix", async () => {
      reset();
      const unknownModel = engineWith({
        models: { 'room-visualizer': 'acme/no-such-model' },
        inputs: { 'room-visualizer': { photo: 'image', prompt: 'prompt' } },
      });
      const missing = await renderError(unknownModel, roomRequest);
      assert.deepEqual([missing.code, missing.transient], ['renderer_unavailable', true]);
      assert.match(missing.message, /refused this service's account \(HTTP 404\)/);
      const unknownVersion = engineWith({ models: { 'virtual-try-on': 'cuuupid/idm-vton:0000' } });
      const version = await renderError(unknownVersion, request);
      assert.deepEqual([version.code, version.transient], ['renderer_unavailable', true]);
      assert.match(version.message, /HTTP 422\): Invalid version or not permitted/);
    });

    it('a wrong token, as the API answers it, and never the token in the message', async () => {
      reset();
      const wrong = 'r8_wrongTOKEN9876543210';
      const error = await renderError(engineWith({ apiKey: wrong }), request);
      assert.deepEqual([error.code, error.transient], ['renderer_unavailable', true]);
      assert.match(error.message, /HTTP 401\): Unauthenticated/);
      answer(creating, problem(400, 'Bad request', `token ${FAKE_TOKEN} is malformed`));
      const echoed = await renderError(engine, request);
      assert.ok(!echoed.message.includes(FAKE_TOKEN), echoed.message);
      assert.match(echoed.message, /\[redacted\]/);
    });

    const failures: [string, Script['end'], [string, boolean]][] = [
      ['flagged as sensitive (E005)', { status: 'failed', error: SENSITIVE }, ['content_blocked', false]],
      [
        'an NSFW checker',
        { status: 'failed', error: 'NSFW content detected. Try running it again, or try a different prompt.' },
        ['content_blocked', false],
      ],
      [
        'no person in the photo',
        { status: 'failed', error: 'ValueError: No person detected in the input image' },
        ['photo_unusable', false],
      ],
      [
        'out of memory (E1001)',
        { status: 'failed', error: 'Model ran out of memory (E1001)' },
        ['render_failed', false],
      ],
      [
        'an unknown platform error (E1000)',
        { status: 'failed', error: 'An unexpected error occurred (E1000)' },
        ['renderer_unavailable', true],
      ],
      [
        'a timeout starting the prediction (E6716)',
        { status: 'failed', error: 'Timed out starting prediction (E6716)' },
        ['renderer_unavailable', true],
      ],
      [
        'a model error',
        { status: 'failed', error: 'RuntimeError: CUDA error: device-side assert triggered' },
        ['render_failed', false],
      ],
      ['a failure without a reason', { status: 'failed', error: null }, ['render_failed', false]],
      ['canceled at its deadline', { status: 'canceled' }, ['render_timeout', true]],
      ['aborted at its deadline before it started', { status: 'aborted' }, ['render_timeout', true]],
      ['succeeded with no output', { status: 'succeeded', output: () => null }, ['render_failed', false]],
      ['succeeded with an empty list', { status: 'succeeded', output: () => [] }, ['render_failed', false]],
      [
        'succeeded with an output that is not a file',
        { status: 'succeeded', output: () => ({ image: 42 }) },
        ['renderer_unavailable', true],
      ],
      [
        'succeeded with a plain-http URL',
        { status: 'succeeded', output: (url) => url.replace('https:', 'http:') },
        ['renderer_unavailable', true],
      ],
      [
        'an output URL that answers 404',
        { status: 'succeeded', output: (url) => `${url}.gone` },
        ['renderer_unavailable', true],
      ],
      [
        'an output that is not an image',
        {
          status: 'succeeded',
          output: () => `data:image/png;base64,${Buffer.from('not an image').toString('base64')}`,
        },
        ['renderer_unavailable', true],
      ],
    ];
    for (const [what, end, expected] of failures) {
      it(`a prediction: ${what}`, async () => {
        reset();
        next({ end });
        const error = await renderError(engine, request);
        assert.deepEqual([error.code, error.transient], expected, error.message);
        if (expected[0] === 'content_blocked')
          assert.ok(
            error.message.length < 300 && !error.message.includes(FAKE_TOKEN),
            'short enough for shops, no secret',
          );
      });
    }

    it('refuses an output URL that points to a private address, through the guarded client', async () => {
      reset();
      next({ end: { status: 'succeeded', output: () => 'https://10.0.0.1/x' } });
      const error = await renderError(engine, request);
      assert.deepEqual([error.code, error.transient], ['renderer_unavailable', true]);
      assert.match(error.message, /blocked_address/);
    });

    it('an unreachable API', async () => {
      const closed = await startFakeReplicate();
      await closed.close();
      const error = await renderError(engineWith({ baseUrl: closed.baseUrl }), request);
      assert.deepEqual([error.code, error.transient], ['renderer_unavailable', true]);
      assert.match(error.message, /could not be reached/);
    });
  });

  describe('plugin', () => {
    const parse = (raw: unknown) => v.parse(replicatePlugin.configSchema!, raw);
    const register = async (raw: unknown) => {
      const { renderer } = await (replicatePlugin as AnyPlugin).register(pluginContext(parse(raw), { outbound }));
      assert.ok(renderer);
      return renderer;
    };

    it('needs a token, from its options or REPLICATE_API_TOKEN, and names the variable when there is none', async () => {
      const saved = process.env.REPLICATE_API_TOKEN;
      delete process.env.REPLICATE_API_TOKEN;
      try {
        await assert.rejects(register({}), /REPLICATE_API_TOKEN/);
        process.env.REPLICATE_API_TOKEN = FAKE_TOKEN;
        const fromEnvironment = await register({ baseUrl: fake.baseUrl, pollIntervalMs: 50 });
        assert.equal(fromEnvironment.name, 'replicate');
        reset();
        await fromEnvironment.render(roomRequest);
        assert.equal(fake.requests[0]!.headers.authorization, `Bearer ${FAKE_TOKEN}`, 'the token from the environment');
      } finally {
        if (saved === undefined) delete process.env.REPLICATE_API_TOKEN;
        else process.env.REPLICATE_API_TOKEN = saved;
      }
    });

    it('supports the modes that have a model, and the sizes it is given', async () => {
      const some = await register({
        apiKey: FAKE_TOKEN,
        models: { 'room-visualizer': 'black-forest-labs/flux-kontext-pro' },
        sizes: ['1K', '2K'],
      });
      assert.deepEqual(some.supports, { modes: ['room-visualizer'], sizes: ['1K', '2K'] });
      const all = await register({ apiKey: FAKE_TOKEN });
      assert.deepEqual(
        all.supports,
        { modes: ['virtual-try-on', 'room-visualizer'] },
        'the default models, every size',
      );
    });

    it('refuses a model reference that is not owner/name[:version], and a model it has no input mapping for', async () => {
      assert.throws(() => parse({ models: { 'room-visualizer': 'flux-kontext-pro' } }), /owner\/name/);
      await assert.rejects(
        register({ apiKey: FAKE_TOKEN, models: { 'virtual-try-on': 'acme/try-on' } }),
        /inputs\["virtual-try-on"\]/,
      );
      await assert.rejects(register({ apiKey: FAKE_TOKEN, models: {} }), /at least one mode/);
    });

    it('declares how its images are made from what the configured models do to the photo', async () => {
      assert.deepEqual((await register({ apiKey: FAKE_TOKEN })).provenance, {
        action: 'c2pa.created',
        digitalSourceType: 'trainedAlgorithmicMedia',
      });
      assert.deepEqual((await register({ apiKey: FAKE_TOKEN, models })).provenance, {
        action: 'c2pa.edited',
        digitalSourceType: 'compositeWithTrainedAlgorithmicMedia',
      });
    });
  });
});
