/**
 * A fake of FASHN's prediction API on loopback, answering with the shapes its reference and SDK
 * document (see plugins/renderer-fashn/fashn-renderer.ts): POST /v1/run → `{ id, error: null }`;
 * GET /v1/status/{id} → starting, in_queue, processing, then completed with `output: [url]`, or
 * failed with `error: { name, message }`; API-level errors as `{ error, message }`. Outputs are
 * served over HTTPS (the test CA) from a second server, as FASHN's CDN serves them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import type { RenderFault } from 'visualizer/testing';
import { startHttpsServer, type TestHttpsServer } from './https-server.ts';

export interface FashnRun {
  model_name: string;
  inputs: Record<string, unknown>;
}

export interface ReceivedRun {
  headers: http.IncomingHttpHeaders;
  body: FashnRun;
  at: number;
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Sent as it is instead of `body` as JSON. */
  raw?: string;
}

export interface Prediction {
  id: string;
  run: FashnRun;
  polls: number;
  /** The model image's upright size, for the output's shape. */
  width: number;
  height: number;
  /** How it ends instead of completing: an input FASHN could not load. */
  failure?: Reply;
}

export interface FakeFashn {
  baseUrl: string;
  apiKey: string;
  /** Every run the fake accepted (valid key and JSON), in order. */
  runs: ReceivedRun[];
  /** Every status poll: the id and when. */
  polls: { id: string; at: number }[];
  /** The CDN's requests (downloads of outputs). */
  cdn: TestHttpsServer;
  /** Answers every API request with this failure, as FASHN documents it, until set back to null. */
  fault: RenderFault | null;
  /** Answers to the next status polls, in order, ahead of the prediction's own progress. */
  pollReplies: Reply[];
  /** Answers the next run with this instead of accepting it. */
  runReply: Reply | null;
  /** How a prediction ends on its last poll (default: completed with its output). */
  finish: ((prediction: Prediction) => Reply) | null;
  /** Predictions never leave `processing`. */
  stuck: boolean;
  /** The URL a completed prediction names (default: this fake's CDN). */
  outputUrl: ((id: string, format: string) => string) | null;
  reset(): void;
  close(): Promise<void>;
}

/** The aspect ratios tryon-max offers (the SDK's `aspect_ratio`); the output takes the nearest to the model image's. */
const RATIOS = ['21:9', '1:1', '4:3', '3:2', '2:3', '5:4', '4:5', '3:4', '16:9', '9:16'];
/** Pixel budgets: "1K (~1 megapixel), 2K (~4 megapixels), 4K (~16 megapixels)" (help.fashn.ai, Resolution & Generation Mode). */
const BUDGET: Record<string, number> = { '1k': 1024 * 1024, '2k': 2048 * 2048, '4k': 4096 * 4096 };
const STEPS = ['starting', 'in_queue', 'processing'];

export const apiError = (status: number, error: string, message: string, headers?: Record<string, string>): Reply => ({
  status,
  body: { error, message },
  headers,
});
export const failed = (id: string, name: string, message: string): Reply => ({
  status: 200,
  body: { id, status: 'failed', error: { name, message } },
});

/** tryon-max's output size: the pixel budget of its resolution at the nearest offered ratio, sides multiples of 16. */
export function tryonMaxSize(width: number, height: number, resolution: string): [number, number] {
  const target = Math.log(width / height);
  const ratio = RATIOS.map((r) => r.split(':').map(Number) as [number, number]).reduce((best, r) =>
    Math.abs(Math.log(r[0] / r[1]) - target) < Math.abs(Math.log(best[0] / best[1]) - target) ? r : best,
  );
  const pixels = BUDGET[resolution]!;
  const w = Math.sqrt((pixels * ratio[0]) / ratio[1]);
  return [Math.round(w / 16) * 16, Math.round(pixels / w / 16) * 16];
}

/** Output pixels by size and format, made once a process: a 16-megapixel image takes seconds on a busy machine. */
const images = new Map<string, Promise<Buffer>>();
function outputImage(width: number, height: number, format: 'png' | 'jpeg'): Promise<Buffer> {
  const key = `${width}x${height}.${format}`;
  if (!images.has(key)) {
    const image = sharp({ create: { width, height, channels: 3, background: '#3060c0' } });
    images.set(key, (format === 'jpeg' ? image.jpeg() : image.png()).toBuffer());
  }
  return images.get(key)!;
}

/**
 * Makes tryon-max's outputs for a model image of this size ahead of time, so that a test with a
 * short engine timeout measures the adapter, not the fake drawing a 4K image.
 */
export async function prepareOutputs(width: number, height: number, format: 'png' | 'jpeg'): Promise<void> {
  await Promise.all(
    ['1k', '2k', '4k'].map((resolution) => outputImage(...tryonMaxSize(width, height, resolution), format)),
  );
}

const DATA_URI = /^data:image\/(jpeg|jpg|png|webp);base64,([A-Za-z0-9+/=]+)$/;

export async function startFakeFashn(apiKey: string): Promise<FakeFashn> {
  const outputs = new Map<string, { bytes: Buffer; type: string; width: number; height: number }>();
  const predictions = new Map<string, Prediction>();
  let counter = 0;

  const cdn = await startHttpsServer((req, res) => {
    const output = outputs.get(req.url ?? '');
    if (!output) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
      return;
    }
    res
      .writeHead(200, { 'content-type': output.type, 'content-length': String(output.bytes.length) })
      .end(output.bytes);
  });

  const fake: FakeFashn = {
    baseUrl: '',
    apiKey,
    runs: [],
    polls: [],
    cdn,
    fault: null,
    pollReplies: [],
    runReply: null,
    finish: null,
    stuck: false,
    outputUrl: null,
    reset() {
      fake.fault = null;
      fake.pollReplies = [];
      fake.runReply = null;
      fake.finish = null;
      fake.stuck = false;
      fake.outputUrl = null;
    },
    close: async () => {},
  };

  /** The model image's upright size, or null when FASHN could not load it (an ImageLoadError). */
  async function modelImageSize(value: unknown): Promise<{ width: number; height: number } | null> {
    if (typeof value !== 'string') return null;
    if (value.startsWith(cdn.url)) return outputs.get(value.slice(cdn.url.length)) ?? null;
    const match = DATA_URI.exec(value);
    if (!match) return null;
    try {
      const { autoOrient } = await sharp(Buffer.from(match[2]!, 'base64')).metadata();
      return autoOrient;
    } catch {
      return null;
    }
  }

  async function complete(prediction: Prediction): Promise<Reply> {
    const format = prediction.run.inputs.output_format === 'jpeg' ? 'jpeg' : 'png';
    const [width, height] =
      prediction.run.model_name === 'tryon-v1.6'
        ? [864, 1296]
        : tryonMaxSize(prediction.width, prediction.height, String(prediction.run.inputs.resolution ?? '1k'));
    const path = `/outputs/${prediction.id}.${format === 'jpeg' ? 'jpg' : 'png'}`;
    if (!outputs.has(path))
      outputs.set(path, { bytes: await outputImage(width, height, format), type: `image/${format}`, width, height });
    const url = fake.outputUrl ? fake.outputUrl(prediction.id, format) : `${cdn.url}${path}`;
    return { status: 200, body: { id: prediction.id, status: 'completed', output: [url], error: null } };
  }

  async function runAnswer(headers: http.IncomingHttpHeaders, raw: string): Promise<Reply> {
    let body: FashnRun;
    try {
      body = JSON.parse(raw) as FashnRun;
    } catch {
      return apiError(400, 'BadRequest', 'Invalid JSON body');
    }
    fake.runs.push({ headers, body, at: Date.now() });
    if (fake.runReply) {
      const reply = fake.runReply;
      fake.runReply = null;
      return reply;
    }
    const garment =
      body.model_name === 'tryon-max' ? 'product_image' : body.model_name === 'tryon-v1.6' ? 'garment_image' : null;
    if (!garment) return apiError(400, 'BadRequest', `Invalid model_name: ${String(body.model_name)}`);
    const inputs = body.inputs ?? {};
    if (typeof inputs.model_image !== 'string' || typeof inputs[garment] !== 'string')
      return apiError(400, 'BadRequest', `inputs.model_image and inputs.${garment} are required`);
    if (
      body.model_name === 'tryon-max' &&
      inputs.resolution !== undefined &&
      !['1k', '2k', '4k'].includes(String(inputs.resolution))
    ) {
      return apiError(400, 'BadRequest', 'inputs.resolution must be one of 1k, 2k, 4k');
    }
    const id = `a1b2c3d4-${String(++counter).padStart(4, '0')}-4bb3-be18-9c9fb5bd7fc1-u1`;
    const size = await modelImageSize(inputs.model_image);
    const garmentLoads = (await modelImageSize(inputs[garment])) !== null;
    // FASHN loads images in the pipeline: one it cannot load fails the prediction, not the run.
    const failure =
      size && garmentLoads
        ? undefined
        : failed(id, 'ImageLoadError', `Error loading ${size ? garment : 'model_image'}: Invalid URL format`);
    predictions.set(id, { id, run: body, polls: 0, width: size?.width ?? 0, height: size?.height ?? 0, failure });
    return { status: 200, body: { id, error: null } };
  }

  async function statusAnswer(id: string): Promise<Reply> {
    fake.polls.push({ id, at: Date.now() });
    if (fake.pollReplies.length > 0) return fake.pollReplies.shift()!;
    const prediction = predictions.get(id);
    if (!prediction) return apiError(404, 'NotFound', `Prediction ${id} not found or no longer tracked`);
    if (fake.stuck) return { status: 200, body: { id, status: 'processing', output: null, error: null } };
    if (prediction.polls < STEPS.length)
      return { status: 200, body: { id, status: STEPS[prediction.polls++], output: null, error: null } };
    if (fake.fault === 'moderation')
      return failed(id, 'ContentModerationError', 'Prohibited content detected in the garment image.');
    if (prediction.failure) return prediction.failure;
    return fake.finish ? fake.finish(prediction) : complete(prediction);
  }

  const faultReplies: Record<'rate_limited' | 'unavailable' | 'malformed', Reply> = {
    rate_limited: apiError(429, 'RateLimitExceeded', 'Too many requests in the window.', { 'retry-after': '7' }),
    unavailable: apiError(500, 'InternalServerError', 'Internal server error.'),
    malformed: {
      status: 200,
      raw: '<html><body>502 Bad Gateway</body></html>',
      headers: { 'content-type': 'text/html' },
    },
  };

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (fake.fault === 'timeout') return; // never answers
    let reply: Reply;
    const status = /^\/v1\/status\/([^/?]+)$/.exec(req.url ?? '');
    if (req.headers.authorization !== `Bearer ${apiKey}`)
      reply = apiError(401, 'UnauthorizedAccess', 'Unauthorized: Invalid token');
    else if (fake.fault && fake.fault !== 'moderation') reply = faultReplies[fake.fault];
    else if (req.method === 'POST' && req.url === '/v1/run')
      reply = await runAnswer(req.headers, Buffer.concat(chunks).toString('utf8'));
    else if (req.method === 'GET' && status) reply = await statusAnswer(decodeURIComponent(status[1]!));
    else reply = apiError(404, 'NotFound', `Cannot ${req.method} ${req.url}`);
    if (res.destroyed) return;
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end(reply.raw ?? JSON.stringify(reply.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = async () => {
    await new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
    await cdn.close();
  };
  return fake;
}
