/**
 * A fake of fal.ai's queue API on loopback, answering in the shapes fal documents
 * (docs.fal.ai/documentation/model-apis/inference/queue, docs.fal.ai/errors, …/request-errors) and
 * the official SDK reads (fal-js libs/client/src/types/common.ts): submit → status polls through
 * IN_QUEUE and IN_PROGRESS → COMPLETED → result. Output images are served by a second server,
 * over HTTPS with the test CA, as fal's CDN serves them, at the sizes the real models answer.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import type { RenderFault } from 'visualizer/testing';
import { startHttpsServer, testCertificates, type TestHttpsServer } from './https-server.ts';

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Sent as it is instead of `body` as JSON. */
  raw?: string;
}

export interface Submission {
  model: string;
  headers: http.IncomingHttpHeaders;
  input: Record<string, unknown>;
}

interface Job {
  id: string;
  model: string;
  input: Record<string, unknown>;
  polls: number;
}

export interface FakeFal {
  /** The queue host (plain HTTP on 127.0.0.1): the adapter's `baseUrl`. */
  baseUrl: string;
  /** The CA the output server's certificate chains to, for the guarded client. */
  caPem: string;
  submissions: Submission[];
  /** Every queue call, as `METHOD path`. */
  calls: string[];
  /** Request ids that were cancelled (PUT cancel_url). */
  cancelled: string[];
  /** Answers every call with this failure, as fal documents it, until set back to null. */
  fault: RenderFault | null;
  /** The statuses each request shows before COMPLETED, one per poll. */
  progression: ('IN_QUEUE' | 'IN_PROGRESS')[];
  /** Answers the next submit with this instead of queueing. */
  nextSubmit: Reply | null;
  /** Answers the next status polls with these, in order, before the progression. */
  nextStatuses: Reply[];
  /** Answers the next result fetch with this (a function gets the job's output URL). */
  nextResult: ((outputUrl: string) => Reply) | null;
  /** Resolves when a status poll arrives (for aborting mid-poll). */
  polled(): Promise<void>;
  close(): Promise<void>;
}

export const FAL_KEY = 'fal-test-key-7f3a9c2e:0b5d8e1f4a6c9b2d';

const KNOWN = new Set([
  'fal-ai/fashn/tryon/v1.6',
  'fal-ai/flux-pro/kontext',
  'fal-ai/flux-pro/kontext/max/multi',
  'custom/tryon-model',
]);

/** fal's request-error shape (…/model-apis/request-errors), with its `X-Fal-Error-Type` header. */
export const requestError = (
  status: number,
  detail: string,
  errorType: string,
  headers: Record<string, string> = {},
): Reply => ({
  status,
  body: { detail, error_type: errorType },
  headers: { 'x-fal-error-type': errorType, ...headers },
});

/** fal's model-error shape (docs.fal.ai/errors): `detail` lists typed errors located at an input field. */
export const modelError = (status: number, field: string, type: string, msg: string): Reply => ({
  status,
  body: { detail: [{ loc: ['body', field], msg, type, url: `https://docs.fal.ai/errors#${type}` }] },
});

export const contentPolicyViolation = (field = 'prompt') =>
  modelError(422, field, 'content_policy_violation', 'The content was flagged by a content checker.');

const faultReplies: Record<Exclude<RenderFault, 'timeout' | 'moderation'>, Reply> = {
  rate_limited: {
    ...requestError(429, 'Rate limit exceeded, please retry later.', 'rate_limited'),
    headers: { 'retry-after': '7' },
  },
  unavailable: requestError(503, 'No runner could be allocated to handle the request.', 'runner_scheduling_failure'),
  malformed: {
    status: 200,
    raw: '<html><body>502 Bad Gateway</body></html>',
    headers: { 'content-type': 'text/html' },
  },
};

/** An image input as the models take it: "URL or base64" (a data URI). */
function image(value: unknown): boolean {
  return (
    typeof value === 'string' &&
    (/^data:image\/(jpeg|png|webp);base64,[A-Za-z0-9+/]+=*$/.test(value) ||
      (URL.canParse(value) && value.startsWith('https://')))
  );
}

/** The input each example model requires (its model page), as fal's FastAPI validation refuses it. */
function validate(model: string, input: Record<string, unknown>): Reply | null {
  const missing = (field: string) => ({
    status: 422,
    body: { detail: [{ loc: ['body', field], msg: 'Field required', type: 'missing' }] },
  });
  if (model === 'fal-ai/fashn/tryon/v1.6' || model === 'custom/tryon-model') {
    const [person, garment] =
      model === 'custom/tryon-model' ? ['human_image_url', 'garment_image_url'] : ['model_image', 'garment_image'];
    if (!image(input[person])) return missing(person);
    if (!image(input[garment])) return missing(garment);
    return null;
  }
  if (typeof input.prompt !== 'string' || input.prompt.length === 0) return missing('prompt');
  if (model === 'fal-ai/flux-pro/kontext/max/multi') {
    const urls = input.image_urls;
    return Array.isArray(urls) && urls.length >= 2 && urls.every(image) ? null : missing('image_urls');
  }
  return image(input.image_url) ? null : missing('image_url');
}

/** The photo's size as the model sees it: the first image of the request, a data URI or one of `outputs`' URLs. */
async function photoSize(
  model: string,
  input: Record<string, unknown>,
  outputs: Map<string, Buffer>,
): Promise<{ width: number; height: number }> {
  const uri = String(
    model.includes('multi')
      ? (input.image_urls as string[])[0]
      : (input.model_image ?? input.human_image_url ?? input.image_url),
  );
  const bytes = uri.startsWith('data:')
    ? Buffer.from(uri.slice(uri.indexOf(',') + 1), 'base64')
    : outputs.get(new URL(uri).pathname);
  if (!bytes) throw new Error(`the fake cannot fetch ${uri}`);
  const metadata = await sharp(bytes).metadata();
  return { width: metadata.autoOrient.width, height: metadata.autoOrient.height };
}

/**
 * The output's size: FASHN v1.6 works at 864×1296 and answers the photo's shape inside it; FLUX
 * Kontext answers about one megapixel in the photo's shape (between 21:9 and 9:21), sides in
 * multiples of 16. Neither is the long side paid for, so `fitToSize` does its work.
 */
export function outputSize(model: string, photo: { width: number; height: number }): { width: number; height: number } {
  if (model.includes('fashn') || model.startsWith('custom/')) {
    const scale = Math.min(864 / photo.width, 1296 / photo.height);
    return {
      width: Math.max(16, Math.round(photo.width * scale)),
      height: Math.max(16, Math.round(photo.height * scale)),
    };
  }
  const ratio = Math.min(21 / 9, Math.max(9 / 21, photo.width / photo.height));
  const width = Math.round(Math.sqrt(1024 * 1024 * ratio) / 16) * 16;
  return { width, height: Math.round(width / ratio / 16) * 16 };
}

export async function startFakeFal(): Promise<FakeFal> {
  const certs = await testCertificates();
  const outputs = new Map<string, Buffer>();
  const cdn: TestHttpsServer = await startHttpsServer((req, res) => {
    const bytes = outputs.get(req.url ?? '');
    if (!bytes) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(bytes.length) }).end(bytes);
  });
  const jobs = new Map<string, Job>();
  let waiters: (() => void)[] = [];
  let sequence = 0;

  const fake: FakeFal = {
    baseUrl: '',
    caPem: certs.caPem,
    submissions: [],
    calls: [],
    cancelled: [],
    fault: null,
    progression: ['IN_QUEUE', 'IN_PROGRESS'],
    nextSubmit: null,
    nextStatuses: [],
    nextResult: null,
    polled: () => new Promise((resolve) => waiters.push(resolve)),
    close: async () => {},
  };

  async function output(job: Job): Promise<Reply> {
    let photo;
    try {
      photo = await photoSize(job.model, job.input, outputs);
    } catch {
      return modelError(
        422,
        'model_image',
        'file_download_error',
        'Failed to download the file. Please check if the URL is accessible.',
      );
    }
    const size = outputSize(job.model, photo);
    const path = `/files/${job.id}.png`;
    if (!outputs.has(path))
      outputs.set(
        path,
        await sharp({ create: { ...size, channels: 3, background: '#30a050' } })
          .png()
          .toBuffer(),
      );
    const url = `${cdn.url}${path}`;
    if (fake.nextResult) {
      const reply = fake.nextResult(url);
      fake.nextResult = null;
      return reply;
    }
    const file = {
      url,
      content_type: 'image/png',
      file_name: `${job.id}.png`,
      file_size: outputs.get(path)!.length,
      ...size,
    };
    if (job.model.includes('fashn') || job.model.startsWith('custom/'))
      return { status: 200, body: { images: [file] } };
    return {
      status: 200,
      body: {
        images: [file],
        timings: { inference: 3.1 },
        seed: 42,
        has_nsfw_concepts: [false],
        prompt: job.input.prompt,
      },
    };
  }

  async function answer(req: http.IncomingMessage, raw: string): Promise<Reply | null> {
    const url = new URL(req.url ?? '/', fake.baseUrl);
    fake.calls.push(`${req.method} ${url.pathname}${url.search}`);
    if (fake.fault === 'timeout') return null;
    if (fake.fault && fake.fault !== 'moderation') return faultReplies[fake.fault];
    if (req.headers.authorization !== `Key ${FAL_KEY}`)
      return { status: 401, body: { detail: 'Invalid Key Authorization header format. Expected a fal key.' } };
    const match = /^\/(.+)\/requests\/([\w-]+)(\/status|\/cancel)?$/.exec(url.pathname);
    if (req.method === 'POST' && !match) {
      const model = url.pathname.slice(1);
      if (!KNOWN.has(model)) return { status: 404, body: { detail: `Application '${model}' not found` } };
      const input = JSON.parse(raw) as Record<string, unknown>;
      fake.submissions.push({ model, headers: req.headers, input });
      if (fake.nextSubmit) {
        const reply = fake.nextSubmit;
        fake.nextSubmit = null;
        return reply;
      }
      const invalid = validate(model, input);
      if (invalid) return invalid;
      const id = `req-${++sequence}-${Date.now().toString(36)}`;
      jobs.set(id, { id, model, input, polls: 0 });
      const base = `${fake.baseUrl}/${model}/requests/${id}`;
      return {
        status: 200,
        body: {
          status: 'IN_QUEUE',
          request_id: id,
          response_url: base,
          status_url: `${base}/status`,
          cancel_url: `${base}/cancel`,
          queue_position: 0,
        },
      };
    }
    const job = match ? jobs.get(match[2]!) : undefined;
    if (!match || !job || match[1] !== job.model) return { status: 404, body: { detail: 'Request not found' } };
    const base = `${fake.baseUrl}/${job.model}/requests/${job.id}`;
    const urls = { request_id: job.id, response_url: base, status_url: `${base}/status`, cancel_url: `${base}/cancel` };
    if (match[3] === '/cancel' && req.method === 'PUT') {
      fake.cancelled.push(job.id);
      return { status: 202, body: { status: 'CANCELLATION_REQUESTED' } };
    }
    if (match[3] === '/status' && req.method === 'GET') {
      for (const resolve of waiters) resolve();
      waiters = [];
      const scripted = fake.nextStatuses.shift();
      if (scripted) return scripted;
      const state = fake.progression[job.polls++];
      if (state === 'IN_QUEUE') return { status: 200, body: { status: 'IN_QUEUE', queue_position: 0, ...urls } };
      if (state === 'IN_PROGRESS') return { status: 200, body: { status: 'IN_PROGRESS', logs: [], ...urls } };
      if (fake.fault === 'moderation')
        return {
          status: 200,
          body: {
            status: 'COMPLETED',
            logs: [],
            metrics: {},
            error: 'The content was flagged by a content checker.',
            error_type: 'content_policy_violation',
            ...urls,
          },
        };
      return { status: 200, body: { status: 'COMPLETED', logs: [], metrics: { inference_time: 3.1 }, ...urls } };
    }
    if (!match[3] && req.method === 'GET') {
      if (fake.fault === 'moderation') return contentPolicyViolation();
      return output(job);
    }
    return { status: 405, body: { detail: 'Method Not Allowed' } };
  }

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const reply = await answer(req, Buffer.concat(chunks).toString('utf8'));
    if (!reply || res.destroyed) return; // `timeout`: never answers
    res.writeHead(reply.status, { 'content-type': 'application/json', 'x-fal-request-id': 'fake', ...reply.headers });
    res.end(reply.raw ?? JSON.stringify(reply.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await cdn.close();
  };
  return fake;
}
