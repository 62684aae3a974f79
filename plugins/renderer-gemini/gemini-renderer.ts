import {
  fitToSize,
  parseRetryAfter,
  RenderError,
  vendorImage,
  type RenderEngine,
  type RenderRequest,
  type RenderResult,
  type VendorImage,
} from '../../kit/plugin.ts';
import { buildPrompt } from './prompt.ts';

export interface GeminiRendererOptions {
  apiKey: string;
  baseUrl?: string;
  model?: string;
  timeoutMs?: number;
}

/** The aspect ratios `imageConfig.aspectRatio` accepts. */
export const ASPECT_RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'] as const;

/**
 * Finish reasons that mean Google's safety systems refused: final, and not the merchant's bug.
 * Each text reason's IMAGE_ twin means the same for the image, so both are here.
 */
const BLOCKED = new Set([
  'SAFETY',
  'PROHIBITED_CONTENT',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'BLOCKLIST',
  'SPII',
  'RECITATION',
  'IMAGE_RECITATION',
]);
const NO_IMAGE = new Set(['NO_IMAGE', 'IMAGE_OTHER', 'OTHER']);

interface InlineData {
  mimeType?: string;
  data?: string;
}

interface GeminiPart {
  text?: string;
  thought?: boolean;
  inlineData?: InlineData;
}

interface GeminiResponse {
  promptFeedback?: { blockReason?: string; blockReasonMessage?: string };
  candidates?: { content?: { parts?: GeminiPart[] }; finishReason?: string; finishMessage?: string }[];
  error?: { code?: number; message?: string; status?: string; details?: { reason?: string }[] };
}

/** The supported ratio nearest the photo's, compared on a log scale so 2:1 and 1:2 are equally far from 1:1. */
export function closestAspectRatio(width: number, height: number): string {
  const target = Math.log(width / height);
  let best: string = ASPECT_RATIOS[0];
  let distance = Infinity;
  for (const ratio of ASPECT_RATIOS) {
    const [w, h] = ratio.split(':').map(Number) as [number, number];
    const d = Math.abs(Math.log(w / h) - target);
    if (d < distance) [best, distance] = [ratio, d];
  }
  return best;
}

const clip = (text: string, max = 500) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** The first real image of the answer, or the RenderError the answer amounts to. */
function imageFrom(answer: GeminiResponse): Buffer {
  const feedback = answer.promptFeedback;
  if (feedback?.blockReason) {
    const detail = feedback.blockReasonMessage ? `: ${clip(feedback.blockReasonMessage)}` : '';
    throw new RenderError('content_blocked', `Gemini blocked the request (${feedback.blockReason})${detail}`, false);
  }
  const candidate = answer.candidates?.[0];
  const reason = candidate?.finishReason;
  const detail = candidate?.finishMessage ? `: ${clip(candidate.finishMessage)}` : '';
  if (reason && BLOCKED.has(reason))
    throw new RenderError('content_blocked', `Gemini refused to render the image (${reason})${detail}`, false);
  const parts = candidate?.content?.parts ?? [];
  // Thinking models send draft images marked `thought: true` before the answer; those are not the
  // result, and neither is inline data of another type.
  const image = parts.find(
    (part) => part.inlineData?.data && !part.thought && part.inlineData.mimeType?.toLowerCase().startsWith('image/'),
  );
  if (!image?.inlineData?.data || (reason && NO_IMAGE.has(reason))) {
    const said = parts
      .filter((part) => part.text && !part.thought)
      .map((part) => part.text)
      .join(' ');
    const explanation = detail || (said ? `: ${clip(said)}` : '');
    throw new RenderError(
      'render_failed',
      `Gemini returned no image${reason ? ` (${reason})` : ''}${explanation}`,
      false,
    );
  }
  return Buffer.from(image.inlineData.data, 'base64');
}

/**
 * Google refusing *us* rather than this request: a key that is invalid or expired (400 with an
 * `API_KEY_…` reason), no permission or the API disabled (401, 403), a model name it does not know
 * (404), billing or region not set up (`FAILED_PRECONDITION`). The operator's to fix, and nothing
 * to do with the shop's images.
 */
function refusesOurAccount(status: number, error: GeminiResponse['error']): boolean {
  if (status === 401 || status === 403 || status === 404) return true;
  const details: unknown[] = Array.isArray(error?.details) ? error.details : [];
  return (
    error?.status === 'FAILED_PRECONDITION' ||
    details.some((detail) => String((detail as { reason?: unknown } | null)?.reason).startsWith('API_KEY_'))
  );
}

/**
 * `status` is the HTTP status, or the code of an error object in a 2xx's body, which means the
 * same; `seen` says which it was, for the log.
 */
function httpError(
  status: number,
  answer: GeminiResponse | null,
  text: string,
  seen = `HTTP ${status}`,
  retryAfterMs?: number,
): RenderError {
  const message = clip(answer?.error?.message ?? text.trim()) || 'no details';
  // 408: the request timed out on its way or at Google's end; another attempt may well get through.
  if (status === 408 || status === 429 || status >= 500)
    return new RenderError('renderer_unavailable', `Gemini is unavailable (${seen}): ${message}`, true, {
      retryAfterMs,
    });
  // Retried (a key being rotated, billing being fixed), then failed as the engine
  // being unavailable: `render_failed` would tell the shop its images were the problem.
  if (refusesOurAccount(status, answer?.error))
    return new RenderError('renderer_unavailable', `Gemini refused this service's account (${seen}): ${message}`, true);
  return new RenderError('render_failed', `Gemini refused the request (${seen}): ${message}`, false);
}

const inline = (image: VendorImage): Required<InlineData> => ({
  mimeType: image.mimeType,
  data: image.bytes.toString('base64'),
});

function parse(text: string): GeminiResponse | null {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? (value as GeminiResponse) : null;
  } catch {
    return null;
  }
}

function networkMessage(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

/**
 * Google's Gemini image model behind the render engine port: one `generateContent` call with
 * the prompt, the photo and the product images, answered with one image.
 */
export function createGeminiRenderer(options: GeminiRendererOptions): RenderEngine {
  const { apiKey, model = 'gemini-3-pro-image-preview', timeoutMs = 120_000 } = options;
  const baseUrl = (options.baseUrl ?? 'https://generativelanguage.googleapis.com').replace(/\/+$/, '');
  const url = `${baseUrl}/v1beta/models/${encodeURIComponent(model)}:generateContent`;
  // Google sometimes echoes the key in errors; no message of ours may carry it to logs or customers.
  const redact = (text: string) => (apiKey ? text.split(apiKey).join('[redacted]') : text);

  async function call(
    body: unknown,
    signal: AbortSignal | undefined,
  ): Promise<{ status: number; text: string; retryAfterMs?: number }> {
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'x-goog-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        // A redirect would carry the key header elsewhere; Google's API does not redirect.
        redirect: 'manual',
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after') ?? undefined, Date.now()) ?? undefined;
      return { status: response.status, text: await response.text(), retryAfterMs };
    } catch (error) {
      if (timeout.aborted)
        throw new RenderError('render_timeout', `Gemini did not answer within ${timeoutMs} ms.`, true);
      if (signal?.aborted)
        throw new RenderError('render_timeout', 'The render was aborted before Gemini answered.', true);
      throw new RenderError('renderer_unavailable', `Gemini could not be reached: ${networkMessage(error)}`, true);
    }
  }

  async function render(request: RenderRequest): Promise<RenderResult> {
    if (request.signal?.aborted)
      throw new RenderError('render_timeout', 'The render was aborted before it started.', true);
    const photo = await vendorImage(request.photo, 'photo');
    const products = await Promise.all(
      request.products.map((product, index) =>
        vendorImage(product.image, `image of product ${index + 1} ("${product.productTitle}")`),
      ),
    );
    const body = {
      contents: [
        {
          role: 'user',
          parts: [
            { text: buildPrompt(request) },
            { inlineData: inline(photo) },
            ...products.map((product) => ({ inlineData: inline(product) })),
          ],
        },
      ],
      generationConfig: {
        responseModalities: ['IMAGE'],
        imageConfig: { imageSize: request.imageSize, aspectRatio: closestAspectRatio(photo.width, photo.height) },
      },
    };
    const { status, text, retryAfterMs } = await call(body, request.signal);
    const answer = parse(text);
    if (status < 200 || status >= 300) throw httpError(status, answer, text, undefined, retryAfterMs);
    // Not the documented answer (a proxy's page, a cut-off body): the engine's fault, not the images'.
    if (!answer)
      throw new RenderError(
        'renderer_unavailable',
        `Gemini answered with something other than JSON: ${clip(text, 200)}`,
        true,
      );
    // An error object in a 200's body (as a proxy or the API may send) is read as its code would be
    // as the status: a 503 there is as transient as a 503 status. One without a code counts as a 500.
    if (answer.error) {
      const { code } = answer.error;
      const meant = Number.isInteger(code) && code! >= 400 && code! <= 599 ? code! : 500;
      throw httpError(meant, answer, text, `error ${code ?? 'without a code'} in an HTTP ${status} answer`);
    }
    return fitToSize(imageFrom(answer), request.imageSize, 'Gemini');
  }

  return {
    name: 'gemini',
    /**
     * The model draws the whole answer: the photo and the product images are its inputs, and no
     * pixel of the photo is pasted back in (that would be `compositeWithTrainedAlgorithmicMedia`,
     * inpainting or outpainting). A new image generated by a trained model: `c2pa.created`,
     * IPTC `trainedAlgorithmicMedia`.
     */
    provenance: { action: 'c2pa.created', digitalSourceType: 'trainedAlgorithmicMedia' },
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
