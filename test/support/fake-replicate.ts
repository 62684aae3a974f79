/**
 * A fake of Replicate's HTTP API on loopback, answering in the shapes of its reference and of the
 * official SDK's tests (replicate-javascript index.test.ts): predictions created by model
 * (`/v1/models/{owner}/{name}/predictions`) or by version (`/v1/predictions`), polled through
 * `starting` and `processing`, cancelled, files uploaded; errors as problem details. Output images
 * are served over HTTPS (the test CA) at replicate.delivery-like paths, in the sizes the models
 * make rather than the size a render asks for.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import type { RenderFault } from 'visualizer/testing';
import { startHttpsServer, type TestHttpsServer } from './https-server.ts';

export const FAKE_TOKEN = 'r8_FAKEtoken0123456789abcdefABCDEF';
export const IDM_VTON_VERSION = 'c871bb9b046607b680449ecbae55fd8c6d945e0a1948644bf2361b3d021d3ff4';

export type Status = 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled' | 'aborted';

export interface Reply {
  status: number;
  body?: unknown;
  /** Sent as it is instead of `body` as JSON. */
  raw?: string;
  headers?: Record<string, string>;
}

export interface ReceivedApiRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The JSON body, or the multipart fields of an upload. */
  body: unknown;
  at: number;
}

/** How the next prediction runs: the statuses it shows, one more per poll, and how it ends. */
export interface Script {
  statuses?: Status[];
  end?:
    | { status: 'succeeded'; output?: (url: string) => unknown }
    | { status: 'failed'; error: unknown }
    | { status: 'canceled' | 'aborted' };
}

/** Each model's fields, and the image it makes from the photo: FLUX Kontext and Nano Banana about a megapixel in the photo's shape, IDM-VTON 768×1024. */
interface FakeModel {
  photo(input: Record<string, unknown>): unknown;
  required: string[];
  outputSize(width: number, height: number): [number, number];
}

function megapixel(width: number, height: number): [number, number] {
  // Kontext's `match_input_image` keeps ratios between 21:9 and 9:21, in multiples of 16.
  const ratio = Math.min(21 / 9, Math.max(9 / 21, width / height));
  const h = Math.sqrt(1_048_576 / ratio);
  return [Math.round((h * ratio) / 16) * 16, Math.round(h / 16) * 16];
}

const models: Record<string, FakeModel> = {
  'black-forest-labs/flux-kontext-pro': {
    photo: (input) => input.input_image,
    required: ['prompt', 'input_image'],
    outputSize: megapixel,
  },
  'google/nano-banana': {
    photo: (input) => (input.image_input as unknown[] | undefined)?.[0],
    required: ['prompt'],
    outputSize: megapixel,
  },
  'cuuupid/idm-vton': {
    photo: (input) => input.human_img,
    required: ['human_img', 'garm_img'],
    outputSize: () => [768, 1024],
  },
};
const versions: Record<string, string> = { [IDM_VTON_VERSION]: 'cuuupid/idm-vton' };

const problem = (status: number, title: string, detail: string): Reply => ({ status, body: { title, detail, status } });

/** The moderation failure of Replicate's hosted models, as a failed prediction's `error`. */
export const SENSITIVE = 'The input or output was flagged as sensitive. Please try again with different inputs. (E005)';

/** Each contract fault as Replicate answers it. */
const faultReplies: Record<Exclude<RenderFault, 'timeout' | 'moderation'>, Reply> = {
  // replicate.com/docs/topics/predictions/rate-limits
  rate_limited: {
    status: 429,
    headers: { 'retry-after': '7' },
    body: { detail: 'Request was throttled. Your rate limit resets in ~7s.' },
  },
  // The SDK's own test of a 503 (index.test.ts): a plain-text body.
  unavailable: { status: 503, raw: 'Service Unavailable', headers: { 'content-type': 'text/plain' } },
  malformed: {
    status: 200,
    raw: '<html><body>502 Bad Gateway</body></html>',
    headers: { 'content-type': 'text/html' },
  },
};

interface Stored {
  id: string;
  model: string;
  version: string;
  input: Record<string, unknown>;
  statuses: Status[];
  end: NonNullable<Script['end']>;
  step: number;
  canceled: boolean;
  output: string;
}

export interface FakeReplicate {
  baseUrl: string;
  /** Serves outputs and uploaded files over HTTPS (its `caPem` is the test CA). */
  files: TestHttpsServer;
  requests: ReceivedApiRequest[];
  /** Every request to the API is answered with this failure until set back to null. */
  fault: RenderFault | null;
  /** Answers an API request (once authenticated) instead of the fake, when it returns a reply. */
  intercept: ((request: ReceivedApiRequest) => Reply | undefined) | null;
  /** How the next prediction runs (then back to the default: starting, processing, succeeded). */
  script: Script | null;
  /** `Prefer: wait` returns a finished prediction (a fast model), rather than one still starting. */
  syncFinishes: boolean;
  /** Ids of deleted files. */
  deletedFiles: string[];
  close(): Promise<void>;
}

export async function startFakeReplicate(): Promise<FakeReplicate> {
  const predictions = new Map<string, Stored>();
  const uploads = new Map<string, { bytes: Buffer; type: string }>();
  const outputs = new Map<string, Buffer>();
  let counter = 0;
  const files = await startHttpsServer((req, res) => {
    const path = req.url ?? '';
    const upload = uploads.get(path.replace(/^\/uploads\//, ''));
    const bytes = outputs.get(path) ?? upload?.bytes;
    if (!bytes) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
    res
      .writeHead(200, { 'content-type': upload?.type ?? 'image/png', 'content-length': String(bytes.length) })
      .end(bytes);
  });

  const fake: FakeReplicate = {
    baseUrl: '',
    files,
    requests: [],
    fault: null,
    intercept: null,
    script: null,
    syncFinishes: false,
    deletedFiles: [],
    close: async () => {},
  };

  /** The photo's bytes from a data URI, an uploaded file's URL or an output's, as the model would fetch it. */
  function imageBytes(value: unknown): Buffer | null {
    if (typeof value !== 'string') return null;
    const data = /^data:image\/(jpeg|png|webp);base64,(.+)$/s.exec(value);
    if (data) return Buffer.from(data[2]!, 'base64');
    if (value.startsWith(`${files.url}/uploads/`))
      return uploads.get(value.slice(`${files.url}/uploads/`.length))?.bytes ?? null;
    // An earlier prediction's output, as replicate.delivery serves it.
    if (value.startsWith(`${files.url}/`)) return outputs.get(value.slice(files.url.length)) ?? null;
    return null;
  }

  const view = (stored: Stored, status: Status) => ({
    id: stored.id,
    model: stored.model,
    version: stored.version,
    input: stored.input,
    logs: '',
    output:
      status === 'succeeded' && stored.end.status === 'succeeded'
        ? (stored.end.output ?? ((url: string) => url))(stored.output)
        : null,
    data_removed: false,
    error: status === 'failed' && stored.end.status === 'failed' ? stored.end.error : null,
    status,
    created_at: '2026-11-27T14:00:00.000000Z',
    urls: {
      get: `${fake.baseUrl}/v1/predictions/${stored.id}`,
      cancel: `${fake.baseUrl}/v1/predictions/${stored.id}/cancel`,
    },
  });
  const current = (stored: Stored): Status =>
    stored.canceled
      ? 'canceled'
      : stored.step < stored.statuses.length
        ? stored.statuses[stored.step]!
        : stored.end.status;

  async function create(
    model: string,
    version: string,
    body: { input?: unknown },
    prefer: string | undefined,
  ): Promise<Reply> {
    const spec = models[model]!;
    const input = body.input;
    if (!input || typeof input !== 'object')
      return problem(422, 'Input validation failed', '- input: Invalid type. Expected: object, given: null');
    const fields = input as Record<string, unknown>;
    const missing = spec.required.find((field) => fields[field] === undefined);
    if (missing) return problem(422, 'Input validation failed', `- input: ${missing} is required`);
    const photo = imageBytes(spec.photo(fields));
    if (!photo)
      return problem(
        422,
        'Input validation failed',
        '- input: the image is not a data URI or a URL of an uploaded file',
      );
    const { autoOrient } = await sharp(photo).metadata();
    const [width, height] = spec.outputSize(autoOrient.width, autoOrient.height);
    const id = `fake${String(++counter).padStart(6, '0')}abcdefghijklmn`.slice(0, 26);
    const path = `/xezq/${id}/tmp${counter}.png`;
    outputs.set(
      path,
      await sharp({ create: { width, height, channels: 3, background: '#20c020' } })
        .png()
        .toBuffer(),
    );
    const script = fake.script ?? {};
    fake.script = null;
    const stored: Stored = {
      id,
      model,
      version: version || 'hidden',
      input: fields,
      statuses: script.statuses ?? ['starting', 'processing'],
      end: script.end ?? { status: 'succeeded' },
      step: 0,
      canceled: false,
      output: `${files.url}${path}`,
    };
    predictions.set(id, stored);
    if (prefer && /^wait(=\d+)?$/.test(prefer) && fake.syncFinishes) stored.step = stored.statuses.length;
    return { status: 201, body: view(stored, current(stored)) };
  }

  async function route(request: ReceivedApiRequest, req: http.IncomingMessage, raw: Buffer): Promise<Reply> {
    const { method, path } = request;
    if (method === 'POST' && path === '/v1/files') {
      const form = await new Request('http://fake/', {
        method: 'POST',
        headers: req.headers as Record<string, string>,
        body: new Uint8Array(raw),
      }).formData();
      const content = form.get('content');
      if (!(content instanceof Blob)) return problem(400, 'Bad request', 'content is required');
      request.body = {
        content: { name: (content as File).name, type: content.type, size: content.size },
        metadata: form.get('metadata') ? await (form.get('metadata') as Blob).text() : null,
      };
      const id = `file${String(++counter).padStart(8, '0')}`;
      uploads.set(id, { bytes: Buffer.from(await content.arrayBuffer()), type: content.type });
      return {
        status: 201,
        body: {
          id,
          content_type: content.type,
          size: content.size,
          checksums: { sha256: '' },
          metadata: {},
          created_at: '2026-11-27T14:00:00Z',
          expires_at: '2026-11-28T14:00:00Z',
          urls: { get: `${files.url}/uploads/${id}` },
        },
      };
    }
    const file = /^\/v1\/files\/([^/]+)$/.exec(path);
    if (method === 'DELETE' && file) {
      fake.deletedFiles.push(file[1]!);
      uploads.delete(file[1]!);
      return { status: 204 };
    }
    const byModel = /^\/v1\/models\/([^/]+)\/([^/]+)\/predictions$/.exec(path);
    if (method === 'POST' && (byModel || path === '/v1/predictions')) {
      if (!String(req.headers['content-type']).startsWith('application/json'))
        return problem(415, 'Unsupported media type', 'Expected application/json');
      const body = request.body as { version?: unknown; input?: unknown } | null;
      if (!body) return problem(400, 'Bad request', 'JSON parse error');
      if (byModel) {
        const model = `${decodeURIComponent(byModel[1]!)}/${decodeURIComponent(byModel[2]!)}`;
        if (!models[model]) return problem(404, 'Not found', 'The requested resource could not be found.');
        return create(model, '', body, req.headers.prefer as string | undefined);
      }
      const model = typeof body.version === 'string' ? versions[body.version] : undefined;
      // github.com/replicate/replicate-python/issues/47
      if (!model)
        return problem(
          422,
          'Invalid version or not permitted',
          "The specified version does not exist (or perhaps you don't have permission to use it?)",
        );
      return create(model, body.version as string, body, req.headers.prefer as string | undefined);
    }
    const one = /^\/v1\/predictions\/([^/]+)(\/cancel)?$/.exec(path);
    const stored = one ? predictions.get(one[1]!) : undefined;
    if (one && !stored) return { status: 404, body: { detail: 'Not found.', status: 404 } };
    if (stored && method === 'POST' && one![2]) {
      if (!['succeeded', 'failed'].includes(current(stored))) stored.canceled = true;
      return { status: 200, body: view(stored, current(stored)) };
    }
    if (stored && method === 'GET' && !one![2]) {
      stored.step = Math.min(stored.step + 1, stored.statuses.length);
      return { status: 200, body: view(stored, current(stored)) };
    }
    return problem(404, 'Not found', 'The requested resource could not be found.');
  }

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    let body: unknown = null;
    if (String(req.headers['content-type']).startsWith('application/json')) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = null;
      }
    }
    const request: ReceivedApiRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body,
      at: Date.now(),
    };
    let reply: Reply;
    const auth = req.headers.authorization;
    if (!auth) reply = problem(401, 'Unauthenticated', 'You did not pass an authentication token');
    else if (auth !== `Bearer ${FAKE_TOKEN}`)
      reply = problem(401, 'Unauthenticated', 'You did not pass a valid authentication token');
    else if (fake.fault === 'timeout') {
      fake.requests.push(request);
      return; // never answers
    } else if (fake.fault && fake.fault !== 'moderation') reply = faultReplies[fake.fault];
    else {
      if (fake.fault === 'moderation') fake.script = { statuses: [], end: { status: 'failed', error: SENSITIVE } };
      reply = fake.intercept?.(request) ?? (await route(request, req, raw));
    }
    fake.requests.push(request);
    if (res.destroyed) return;
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end(reply.status === 204 ? undefined : (reply.raw ?? JSON.stringify(reply.body)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = async () => {
    await new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
    await files.close();
  };
  return fake;
}
