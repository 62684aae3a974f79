/**
 * FASHN's virtual try-on behind the render engine port: POST /v1/run, then GET /v1/status/{id}
 * until the prediction ends, then the output URL downloaded through the guarded client.
 *
 * Built from:
 * - the official SDK, github.com/fashn-AI/fashn-typescript-sdk: src/resources/predictions.ts at
 *   063b9ade8e4aad0833da252797d51bc1f0087072 (tryon-max and tryon-v1.6 inputs, the status names,
 *   `PredictionStatusResponse.Error.name`, `subscribe`'s 1 s poll and 5 min timeout, 3 retries of a
 *   status poll), and src/client.ts and src/core/error.ts at aacd05ae250d042abc66ce75437b709436c40aa9
 *   (`Authorization: Bearer`, base URL https://api.fashn.ai, 408/409/429/5xx retried after
 *   `retry-after-ms`, else `Retry-After` seconds or date);
 * - the reference: https://docs.fashn.ai/api-overview/api-fundamentals (run, then status: starting,
 *   in_queue, processing, completed, failed; output URLs kept 72 h),
 *   https://docs.fashn.ai/api-overview/error-handling (API-level `{ error, message }` bodies: 400
 *   BadRequest, 401 UnauthorizedAccess, 404 NotFound, 429 RateLimitExceeded /
 *   ConcurrencyLimitExceeded / OutOfCredits, 500 InternalServerError; runtime errors as
 *   `status: "failed"` with `error: { name, message }`), https://docs.fashn.ai/api-reference/tryon-max
 *   (product_image, model_image, prompt, resolution 1k/2k/4k; base64 inputs as data URIs) and
 *   https://docs.fashn.ai/api-reference/tryon-v1-6 (garment_image; 864×1296 output).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  fitToSize,
  OutboundError,
  parseRetryAfter,
  RenderError,
  vendorImage,
  type GuardedClient,
  type ImageSize,
  type RenderEngine,
  type RenderRequest,
  type RenderResult,
  type VendorImage,
} from '../../kit/plugin.ts';
import { httpError, runtimeError, type FashnApiError, type FashnRuntimeError } from './fashn-errors.ts';

export const FASHN_MODELS = ['tryon-max', 'tryon-v1.6'] as const;
export type FashnModel = (typeof FASHN_MODELS)[number];

export interface FashnRendererOptions {
  apiKey: string;
  /** The plugin context's guarded client: the only way output URLs are fetched. */
  outbound: GuardedClient;
  baseUrl?: string;
  model?: FashnModel;
  /** The whole render: every run, every poll and the download. */
  timeoutMs?: number;
  pollIntervalMs?: number;
  outputFormat?: 'png' | 'jpeg';
  /** The largest output accepted: a 4K PNG is some tens of MB. */
  maxOutputBytes?: number;
}

export const DEFAULT_BASE_URL = 'https://api.fashn.ai';
/**
 * The router's default engine timeout (`render.engineDefaults.timeoutMs`): past it the router abandons
 * the render anyway, so a longer own timeout (the SDK's 5 minutes) would only mislead. Raise both together.
 */
export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_POLL_INTERVAL_MS = 1_000;
/** As the SDK's `subscribe`: a status poll answered 408, 429 or 5xx, or not answered, is asked again this many times in a row. */
const POLL_RETRIES = 3;
const IN_PROGRESS = new Set(['starting', 'in_queue', 'processing']);

interface Answer {
  status: number;
  text: string;
  retryAfterMs: number | undefined;
}

interface RunAnswer {
  id?: unknown;
  error?: unknown;
}

interface StatusAnswer {
  id?: unknown;
  status?: unknown;
  output?: unknown;
  error?: FashnRuntimeError | null;
}

const dataUri = (image: VendorImage) => `data:${image.mimeType};base64,${image.bytes.toString('base64')}`;
const resolution = (size: ImageSize) => size.toLowerCase() as '1k' | '2k' | '4k';

function parse<T>(text: string): T | null {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as T) : null;
  } catch {
    return null;
  }
}

/** As the SDK reads it: `retry-after-ms` first, then `Retry-After` (seconds or an HTTP date). */
function retryAfter(headers: Headers): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms));
  return parseRetryAfter(headers.get('retry-after') ?? undefined, Date.now()) ?? undefined;
}

function networkMessage(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

const clip = (text: string, max = 200) => (text.length > max ? `${text.slice(0, max)}…` : text);
const undocumented = (what: string, text: string) =>
  new RenderError(
    'renderer_unavailable',
    `FASHN answered ${what} with something other than its documented JSON: ${clip(text) || 'an empty body'}`,
    true,
  );

/**
 * FASHN takes one garment a run. Two or three products are put on one after another: each run's
 * output (a FASHN CDN URL, which its API takes as an input) is the next run's `model_image`, all
 * within the one timeout; only the last output is downloaded.
 */
export function createFashnRenderer(options: FashnRendererOptions): RenderEngine {
  const {
    apiKey,
    outbound,
    model = 'tryon-max',
    timeoutMs = DEFAULT_TIMEOUT_MS,
    pollIntervalMs = DEFAULT_POLL_INTERVAL_MS,
    outputFormat = 'png',
  } = options;
  const maxOutputBytes = options.maxOutputBytes ?? 64 * 1024 * 1024;
  const baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  // A vendor or proxy may echo the Authorization header in an error; no message of ours may carry it.
  const redact = (text: string) => (apiKey ? text.split(apiKey).join('[redacted]') : text);

  function inputs(modelImage: string, product: string, request: RenderRequest): Record<string, unknown> {
    if (model === 'tryon-v1.6') return { model_image: modelImage, garment_image: product, output_format: outputFormat };
    // The shopper's hint is styling guidance; tryon-max's `prompt` is that ("tuck in shirt").
    return {
      model_image: modelImage,
      product_image: product,
      resolution: resolution(request.imageSize),
      output_format: outputFormat,
      ...(request.hint ? { prompt: request.hint } : {}),
    };
  }

  async function render(request: RenderRequest): Promise<RenderResult> {
    if (request.signal?.aborted)
      throw new RenderError('render_timeout', 'The render was aborted before it started.', true);
    if (request.products.length === 0)
      throw new RenderError('render_failed', 'A try-on needs at least one product image.', false);
    const deadline = Date.now() + timeoutMs;
    const timer = AbortSignal.timeout(timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, timer]) : timer;
    const stopped = () =>
      timer.aborted
        ? new RenderError('render_timeout', `FASHN did not finish within ${timeoutMs} ms.`, true)
        : new RenderError('render_timeout', 'The render was aborted while FASHN was rendering.', true);
    const wait = async (ms: number) => {
      try {
        await sleep(Math.max(0, Math.min(ms, deadline - Date.now())), undefined, { signal });
      } catch {
        throw stopped();
      }
      if (signal.aborted) throw stopped();
    };

    async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
      try {
        const response = await fetch(`${baseUrl}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${apiKey}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          // A redirect would carry the key elsewhere; FASHN's API does not redirect.
          redirect: 'manual',
          signal,
        });
        return { status: response.status, text: await response.text(), retryAfterMs: retryAfter(response.headers) };
      } catch (error) {
        if (signal.aborted) throw stopped();
        throw new RenderError('renderer_unavailable', `FASHN could not be reached: ${networkMessage(error)}`, true);
      }
    }

    async function run(modelImage: string, product: string): Promise<string> {
      const answer = await call('POST', '/v1/run', { model_name: model, inputs: inputs(modelImage, product, request) });
      const body = parse<RunAnswer & FashnApiError>(answer.text);
      if (answer.status < 200 || answer.status >= 300)
        throw httpError(answer.status, body, answer.text, answer.retryAfterMs);
      if (!body) throw undocumented('a run', answer.text);
      // `error`: "Error message if prediction failed to start", beside a null or absent id.
      if (typeof body.error === 'string' && body.error)
        throw new RenderError('render_failed', `FASHN did not start the try-on: ${clip(body.error, 300)}`, false);
      if (typeof body.id !== 'string' || !body.id) throw undocumented('a run', answer.text);
      return body.id;
    }

    async function poll(id: string): Promise<string> {
      let retries = 0;
      for (;;) {
        let answer: Answer;
        try {
          answer = await call('GET', `/v1/status/${encodeURIComponent(id)}`);
        } catch (error) {
          if (error instanceof RenderError && error.code === 'renderer_unavailable' && retries++ < POLL_RETRIES) {
            await wait(pollIntervalMs);
            continue;
          }
          throw error;
        }
        const body = parse<StatusAnswer & FashnApiError>(answer.text);
        if (answer.status < 200 || answer.status >= 300) {
          const error = httpError(answer.status, body, answer.text, answer.retryAfterMs);
          const passing = answer.status === 408 || answer.status === 429 || answer.status >= 500;
          // Asked to wait longer than the render has left: give up now, passing the wait on.
          const pause = answer.retryAfterMs ?? pollIntervalMs;
          if (passing && retries++ < POLL_RETRIES && pause <= deadline - Date.now()) {
            await wait(pause);
            continue;
          }
          throw error;
        }
        retries = 0;
        if (!body || typeof body.status !== 'string') throw undocumented('a status poll', answer.text);
        if (IN_PROGRESS.has(body.status)) {
          await wait(Math.max(pollIntervalMs, answer.retryAfterMs ?? 0));
          continue;
        }
        switch (body.status) {
          case 'completed': {
            const url = Array.isArray(body.output) ? body.output[0] : undefined;
            if (typeof url !== 'string' || !url) throw undocumented('a completed prediction', answer.text);
            return url;
          }
          case 'failed':
            throw runtimeError(body.error);
          case 'time_out':
            throw new RenderError('render_timeout', 'FASHN timed the prediction out.', true);
          case 'canceled':
            throw new RenderError('renderer_unavailable', 'FASHN canceled the prediction.', true);
          default:
            throw undocumented('a status poll', answer.text);
        }
      }
    }

    /** Output URLs come from the vendor's answer: untrusted, so only the guarded client fetches them. */
    async function download(url: string): Promise<Uint8Array> {
      let response;
      try {
        response = await outbound.request(url, {
          timeoutMs: Math.max(1, deadline - Date.now()),
          maxBytes: maxOutputBytes,
          maxRedirects: 3,
          signal,
        });
      } catch (error) {
        if (signal.aborted) throw stopped();
        const why = error instanceof OutboundError ? `${error.code}: ${error.message}` : networkMessage(error);
        throw new RenderError('renderer_unavailable', `FASHN's output could not be downloaded (${why})`, true);
      }
      if (response.status < 200 || response.status >= 300)
        throw new RenderError('renderer_unavailable', `FASHN's output URL answered HTTP ${response.status}.`, true);
      return response.body;
    }

    const photo = await vendorImage(request.photo, 'photo');
    const products = await Promise.all(
      request.products.map((product, index) =>
        vendorImage(product.image, `image of product ${index + 1} ("${product.productTitle}")`),
      ),
    );
    let modelImage = dataUri(photo);
    for (const product of products) modelImage = await poll(await run(modelImage, dataUri(product)));
    return fitToSize(await download(modelImage), request.imageSize, 'FASHN');
  }

  return {
    name: 'fashn',
    /**
     * A try-on edits the shopper's own photo: FASHN keeps the person's identity, pose and
     * background and generates the garment onto them (its reference: "preserves the model's
     * identity, pose, and styling"). A captured photo with a region made by a trained model is
     * IPTC's `compositeWithTrainedAlgorithmicMedia`, and the action `c2pa.edited`, for both models.
     */
    provenance: { action: 'c2pa.edited', digitalSourceType: 'compositeWithTrainedAlgorithmicMedia' },
    // tryon-v1.6 draws 864×1296 whatever is asked: 1K only, so 2K and 4K go to the next engine.
    supports: { modes: ['virtual-try-on'], sizes: model === 'tryon-v1.6' ? ['1K'] : ['1K', '2K', '4K'] },
    async render(request) {
      try {
        return await render(request);
      } catch (error) {
        if (error instanceof RenderError)
          throw new RenderError(error.code, redact(error.message), error.transient, {
            retryAfterMs: error.retryAfterMs,
          });
        throw error;
      }
    },
  };
}
