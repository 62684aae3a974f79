/**
 * Replicate's predictions API behind the render engine port: create a prediction for the mode's
 * model (holding the request open with `Prefer: wait` while the time allows), poll it until it
 * ends, then download its output through the guarded outbound client.
 *
 * Built from:
 * - the official SDK, github.com/replicate/replicate-javascript at 2fd6f3944f5e252f2eb7cd4e9e5416786b9c4861
 *   (1.4.0): index.js (`run`, `wait`, `request`: `Authorization: Bearer`, terminal statuses,
 *   output strings starting `https:` or `data:` are files, fetched without the token),
 *   lib/predictions.js (POST /models/{owner}/{name}/predictions, POST /predictions with `version`,
 *   `Prefer: wait` / `wait=n`, GET /predictions/{id}, POST /predictions/{id}/cancel),
 *   lib/identifier.js (`owner/name[:version]`), lib/files.js (POST /files, multipart `content` and
 *   `metadata`, answered with `urls.get`; DELETE /files/{id}), lib/util.js (data URIs; GETs
 *   retried on 429 and 5xx after `Retry-After`), index.d.ts (`Status`, including `aborted`;
 *   `FileObject`);
 *   github.com/replicate/replicate-python at 0110c2c5639763a44e73d69011eaec28a15334f7,
 *   replicate/exceptions.py (errors are RFC 7807 problem details: `title`, `detail`, `status`).
 * - the reference: replicate.com/docs/reference/http (predictions.create/get/cancel; files as data
 *   URLs or HTTP URLs), replicate.com/docs/topics/predictions/create-a-prediction (sync mode:
 *   `Prefer: wait`, at most 60 s, then the prediction comes back unfinished),
 *   replicate.com/docs/topics/predictions/lifecycle (starting, processing, succeeded, failed,
 *   canceled, aborted), replicate.com/changelog/2025-10-16-prediction-deadlines (`Cancel-After`),
 *   replicate.com/docs/topics/predictions/rate-limits (429 `{"detail":"Request was throttled. …"}`),
 *   replicate.com/docs/reference/error-codes (E1000, E1001, E6716 …).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  fitToSize,
  OutboundError,
  parseRetryAfter,
  RenderError,
  vendorImage,
  type EngineProvenance,
  type GuardedClient,
  type ImageSize,
  type Mode,
  type RenderEngine,
  type RenderRequest,
  type RenderResult,
  type VendorImage,
} from '../../kit/plugin.ts';
import { clip, failedPrediction, httpError, type ProblemDetails } from './failures.ts';
import {
  buildInput,
  mappingFor,
  parseModelRef,
  productImagesSent,
  provenanceOf,
  type InputMapping,
  type ModelRef,
} from './models.ts';
import { buildPrompt, productTitles } from './prompt.ts';

export interface ReplicateRendererOptions {
  apiKey: string;
  baseUrl?: string;
  /** The whole render: creating, polling and downloading. */
  timeoutMs?: number;
  pollIntervalMs?: number;
  /** The model for each mode it renders, `owner/name` or `owner/name:version`; a mode without one is not supported. */
  models: Partial<Record<Mode, string>>;
  /** Input mappings per mode, for models without a default (see models.ts). */
  inputs?: Partial<Record<Mode, InputMapping>>;
  /** Sizes it takes; all by default (the models' ~1 MP images are scaled to the size paid for). */
  sizes?: readonly ImageSize[];
  /** The plugin context's guarded client: output URLs come from the vendor's answer and are untrusted. */
  outbound: GuardedClient;
}

const STATUSES = ['starting', 'processing', 'succeeded', 'failed', 'canceled', 'aborted'] as const;
type Status = (typeof STATUSES)[number];
const TERMINAL = new Set<Status>(['succeeded', 'failed', 'canceled', 'aborted']);

interface Prediction {
  id: string;
  status: Status;
  output?: unknown;
  error?: unknown;
}

/**
 * Images up to this size go inline as data URIs, larger ones through the files API: the reference's
 * advice for predictions.create's `input` ("a data URL when you have a small file <= 256kb"). The
 * SDK uploads every file by default and inlines only in its `data-uri` strategy.
 */
const MAX_INLINE_BYTES = 256 * 1024;
/** Sync mode holds a request open at most this long (create-a-prediction). */
const MAX_WAIT_SECONDS = 60;
/** Consecutive transient failures of polling before giving up, as the SDK's retries (lib/util.js). */
const POLL_RETRIES = 5;
/** An output image larger than this is not one the documented models make. */
const MAX_OUTPUT_BYTES = 100 * 1024 * 1024;

interface Plan {
  ref: ModelRef;
  mapping: InputMapping;
}

/** The model and input mapping of each configured mode; throws (at start) for a reference or a model it cannot use. */
export function planModes(
  models: ReplicateRendererOptions['models'],
  inputs: ReplicateRendererOptions['inputs'] = {},
): Partial<Record<Mode, Plan>> {
  const plans: Partial<Record<Mode, Plan>> = {};
  for (const [mode, reference] of Object.entries(models) as [Mode, string | undefined][]) {
    if (!reference) continue;
    const ref = parseModelRef(reference);
    if (!ref)
      throw new Error(`the Replicate model for ${mode}, "${reference}", is not owner/name or owner/name:version.`);
    const mapping = mappingFor(ref, inputs[mode]);
    if (!mapping)
      throw new Error(
        `the Replicate renderer has no input mapping for ${ref.owner}/${ref.name}: set pluginOptions.renderer-replicate.inputs["${mode}"].`,
      );
    plans[mode] = { ref, mapping };
  }
  return plans;
}

const dataUri = (image: VendorImage) => `data:${image.mimeType};base64,${image.bytes.toString('base64')}`;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** An error answer's problem details, when its body is a JSON object. */
function problemOf(value: unknown): ProblemDetails | null {
  return value && typeof value === 'object' ? (value as ProblemDetails) : null;
}

/** A prediction as the API documents it, or null: an id we may put in a path, and a known status. */
function asPrediction(value: unknown): Prediction | null {
  if (!value || typeof value !== 'object') return null;
  const { id, status } = value as { id?: unknown; status?: unknown };
  if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,100}$/.test(id)) return null;
  if (typeof status !== 'string' || !(STATUSES as readonly string[]).includes(status)) return null;
  return value as Prediction;
}

function networkMessage(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

export function createReplicateRenderer(options: ReplicateRendererOptions): RenderEngine {
  const { apiKey, outbound, timeoutMs = 120_000, pollIntervalMs = 1_000 } = options;
  const baseUrl = (options.baseUrl ?? 'https://api.replicate.com').replace(/\/+$/, '');
  const plans = planModes(options.models, options.inputs);
  const modes = Object.keys(plans) as Mode[];
  if (modes.length === 0)
    throw new Error(
      'the Replicate renderer needs a model for at least one mode: set pluginOptions.renderer-replicate.models.',
    );
  // A vendor may echo what it was sent; no message of ours carries the token to logs or shops.
  const redact = (message: string) => message.split(apiKey).join('[redacted]');

  interface Call {
    signal: AbortSignal;
    deadline: number;
    /** The error the abort means: our own timeout, or the caller's signal. */
    aborted(): RenderError;
  }

  async function api(
    call: Call,
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) {
    const json = body !== undefined && !(body instanceof FormData);
    try {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        // FormData sets its own multipart content type, boundary included.
        headers: {
          authorization: `Bearer ${apiKey}`,
          ...(json ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        body: json ? JSON.stringify(body) : (body as FormData | undefined),
        // A redirect would carry the token elsewhere; the API does not redirect.
        redirect: 'manual',
        signal: call.signal,
      });
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after') ?? undefined, Date.now()) ?? undefined;
      return { status: response.status, text: await response.text(), retryAfterMs };
    } catch (error) {
      if (call.signal.aborted) throw call.aborted();
      throw new RenderError('renderer_unavailable', `Replicate could not be reached: ${networkMessage(error)}`, true);
    }
  }

  /** The answer as a prediction, or the error it amounts to. */
  function prediction(answer: { status: number; text: string; retryAfterMs?: number }): Prediction {
    const value = parseJson(answer.text);
    if (answer.status < 200 || answer.status >= 300)
      throw httpError(answer.status, problemOf(value), answer.text, answer.retryAfterMs);
    const found = asPrediction(value);
    if (!found)
      throw new RenderError(
        'renderer_unavailable',
        `Replicate answered with something other than a prediction: ${clip(answer.text, 200)}`,
        true,
      );
    return found;
  }

  async function create(call: Call, plan: Plan, input: Record<string, unknown>): Promise<Prediction> {
    const { ref } = plan;
    const path = ref.version
      ? '/v1/predictions'
      : `/v1/models/${encodeURIComponent(ref.owner)}/${encodeURIComponent(ref.name)}/predictions`;
    const body = ref.version ? { version: ref.version, input } : { input };
    const seconds = Math.floor((call.deadline - Date.now()) / 1000);
    const headers: Record<string, string> = {
      // Replicate cancels the prediction itself past our deadline, even when we cannot tell it to
      // (an aborted sync request leaves us without its id).
      'cancel-after': `${Math.max(1, Math.ceil(timeoutMs / 1000))}s`,
    };
    // Sync mode saves the polls of a model that finishes within the wait; it is left out when
    // less than a second remains, since `wait=0` is not a documented value.
    if (seconds >= 1) headers.prefer = `wait=${Math.min(MAX_WAIT_SECONDS, seconds)}`;
    return prediction(await api(call, 'POST', path, body, headers));
  }

  /**
   * One poll. 408, 429, 5xx and network failures are tried again after `Retry-After` (or the
   * interval, doubling), as the SDK retries GETs; a prediction's state is safe to ask for twice.
   */
  async function poll(call: Call, id: string): Promise<Prediction> {
    for (let failures = 1; ; failures++) {
      let answer: Awaited<ReturnType<typeof api>> | RenderError;
      try {
        answer = await api(call, 'GET', `/v1/predictions/${id}`);
      } catch (thrown) {
        // Unreachable (a network failure): worth another try. An abort is thrown on.
        if (!(thrown instanceof RenderError) || thrown.code !== 'renderer_unavailable') throw thrown;
        answer = thrown;
      }
      if (!(answer instanceof RenderError) && answer.status !== 408 && answer.status !== 429 && answer.status < 500)
        return prediction(answer);
      const error =
        answer instanceof RenderError
          ? answer
          : httpError(answer.status, problemOf(parseJson(answer.text)), answer.text, answer.retryAfterMs);
      if (failures >= POLL_RETRIES) throw error;
      const wait = error.retryAfterMs ?? pollIntervalMs * 2 ** (failures - 1);
      // A wait past our deadline would end in a timeout anyway: give up now, passing the wait on.
      if (Date.now() + wait >= call.deadline) throw error;
      await sleep(wait, undefined, { signal: call.signal }).catch(() => {
        throw call.aborted();
      });
    }
  }

  /**
   * An image too large for a data URI, uploaded as the SDK's files.create does (multipart
   * `content` and `metadata`); the model fetches it from the answer's `urls.get`.
   */
  async function upload(call: Call, image: VendorImage, name: string, uploaded: string[]): Promise<string> {
    const form = new FormData();
    form.append(
      'content',
      new Blob([new Uint8Array(image.bytes)], { type: image.mimeType }),
      `${name}.${image.mimeType.slice('image/'.length)}`,
    );
    form.append('metadata', new Blob(['{}'], { type: 'application/json' }));
    const answer = await api(call, 'POST', '/v1/files', form);
    const value = parseJson(answer.text);
    if (answer.status < 200 || answer.status >= 300)
      throw httpError(answer.status, problemOf(value), answer.text, answer.retryAfterMs);
    const file = value as { id?: unknown; urls?: { get?: unknown } } | null;
    const url = file?.urls?.get;
    if (
      typeof file?.id !== 'string' ||
      !/^[A-Za-z0-9_-]{1,100}$/.test(file.id) ||
      typeof url !== 'string' ||
      !url.startsWith('https:')
    ) {
      throw new RenderError(
        'renderer_unavailable',
        `Replicate answered an upload with something other than a file: ${clip(answer.text, 200)}`,
        true,
      );
    }
    uploaded.push(file.id);
    return url;
  }

  /** Best effort, not awaited by the render: a request for Replicate that we need no answer to. */
  function fireAndForget(method: 'POST' | 'DELETE', path: string): void {
    void fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}` },
      redirect: 'manual',
      signal: AbortSignal.timeout(5_000),
    })
      .then((response) => response.body?.cancel())
      .catch(() => {});
  }

  /** The output's first image: a URL (string, or the first of an array) as the SDK reads files. */
  function outputUrl(output: unknown): string {
    const first = Array.isArray(output) ? output.find((item) => typeof item === 'string') : output;
    if (first === undefined || first === null || first === '')
      throw new RenderError('render_failed', 'Replicate returned no image.', false);
    if (typeof first !== 'string' || !/^(https:|data:)/.test(first)) {
      throw new RenderError(
        'renderer_unavailable',
        `Replicate returned an output that is not a file URL: ${clip(JSON.stringify(first), 200)}`,
        true,
      );
    }
    return first;
  }

  /** The output's bytes: a data URI decoded here, an HTTPS URL fetched through the guarded client (the URL is untrusted). */
  async function download(call: Call, url: string): Promise<Uint8Array> {
    if (url.startsWith('data:')) {
      const match = /^data:[^,;]*(;[^,]*)*;base64,(.*)$/s.exec(url);
      if (!match)
        throw new RenderError('renderer_unavailable', 'Replicate returned a data URI that is not base64.', true);
      return Buffer.from(match[2]!, 'base64');
    }
    try {
      const response = await outbound.request(url, {
        timeoutMs: Math.max(1, call.deadline - Date.now()),
        maxBytes: MAX_OUTPUT_BYTES,
        maxRedirects: 3,
        signal: call.signal,
      });
      if (response.status < 200 || response.status >= 300)
        throw new RenderError(
          'renderer_unavailable',
          `Replicate's output could not be downloaded (HTTP ${response.status}).`,
          true,
        );
      return response.body;
    } catch (error) {
      if (error instanceof RenderError) throw error;
      if (call.signal.aborted) throw call.aborted();
      const reason = error instanceof OutboundError ? `${error.code}: ${error.message}` : (error as Error).message;
      throw new RenderError(
        'renderer_unavailable',
        `Replicate's output could not be downloaded (${clip(reason, 200)}).`,
        true,
      );
    }
  }

  async function render(request: RenderRequest, call: Call): Promise<RenderResult> {
    const plan = plans[request.mode];
    if (!plan)
      throw new RenderError('render_failed', `The Replicate renderer has no model for ${request.mode}.`, false);
    const photo = await vendorImage(request.photo, 'photo');
    const products = await Promise.all(
      request.products.map((product, index) =>
        vendorImage(product.image, `image of product ${index + 1} ("${product.productTitle}")`),
      ),
    );
    if (call.signal.aborted) throw call.aborted();
    // A model with a field per product image (IDM-VTON has one) gets more products than it has
    // fields over several predictions: each one's output, still on Replicate, is the next one's photo.
    const perRun =
      Array.isArray(plan.mapping.products) && products.length > plan.mapping.products.length
        ? Math.max(1, plan.mapping.products.length)
        : Math.max(1, products.length);
    const uploaded: string[] = [];
    try {
      const place = (image: VendorImage, name: string) =>
        image.bytes.byteLength <= MAX_INLINE_BYTES ? dataUri(image) : upload(call, image, name, uploaded);
      let output = await place(photo, 'photo');
      for (let first = 0; first === 0 || first < products.length; first += perRun) {
        const described = request.products.slice(first, first + perRun);
        const sent = productImagesSent(plan.mapping, described.length);
        const input = buildInput(plan.mapping, {
          photo: output,
          products: await Promise.all(
            products.slice(first, first + sent).map((product, index) => place(product, `product-${first + index + 1}`)),
          ),
          prompt: buildPrompt({ mode: request.mode, products: described, hint: request.hint, imagesSent: sent }),
          titles: productTitles(described),
        });
        output = await run(call, plan, input);
      }
      return await fitToSize(await download(call, output), request.imageSize, 'Replicate');
    } finally {
      // The shopper's photo is not left on Replicate once the prediction no longer needs it.
      for (const id of uploaded) fireAndForget('DELETE', `/v1/files/${id}`);
    }
  }

  /** One prediction, created and polled until it ends; the URL of its output image. */
  async function run(call: Call, plan: Plan, input: Record<string, unknown>): Promise<string> {
    let current = await create(call, plan, input);
    try {
      while (!TERMINAL.has(current.status)) {
        await sleep(pollIntervalMs, undefined, { signal: call.signal }).catch(() => {
          throw call.aborted();
        });
        current = await poll(call, current.id);
      }
    } catch (error) {
      // Stopped waiting (our timeout, the caller's abort, Replicate unreachable): the prediction
      // would run on and be billed for nothing.
      fireAndForget('POST', `/v1/predictions/${current.id}/cancel`);
      throw error;
    }
    switch (current.status) {
      case 'failed':
        throw failedPrediction(current.error);
      case 'canceled':
      case 'aborted':
        // Only our deadline cancels it: `aborted` before it started, `canceled` while it ran.
        throw new RenderError('render_timeout', `Replicate ${current.status} the prediction at its deadline.`, true);
      default:
        return outputUrl(current.output);
    }
  }

  const provenance: EngineProvenance = provenanceOf(modes.map((mode) => plans[mode]!.mapping));

  return {
    name: 'replicate',
    // See provenanceOf: decided by what the configured models do to the photo.
    provenance,
    supports: { modes, ...(options.sizes ? { sizes: options.sizes } : {}) },
    async render(request) {
      if (request.signal?.aborted)
        throw new RenderError('render_timeout', 'The render was aborted before it started.', true);
      const timeout = AbortSignal.timeout(timeoutMs);
      const call: Call = {
        signal: request.signal ? AbortSignal.any([request.signal, timeout]) : timeout,
        deadline: Date.now() + timeoutMs,
        aborted: () =>
          timeout.aborted && !request.signal?.aborted
            ? new RenderError('render_timeout', `Replicate did not finish within ${timeoutMs} ms.`, true)
            : new RenderError('render_timeout', 'The render was aborted before Replicate finished.', true),
      };
      try {
        return await render(request, call);
      } catch (error) {
        if (error instanceof RenderError)
          throw new RenderError(error.code, redact(error.message), error.transient, {
            retryAfterMs: error.retryAfterMs,
          });
        if (call.signal.aborted) throw call.aborted();
        throw error;
      }
    },
  };
}
