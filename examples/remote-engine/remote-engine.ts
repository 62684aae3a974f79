import {
  fitToSize,
  parseRetryAfter,
  RenderError,
  vendorImage,
  type RenderEngine,
  type RenderRequest,
  type RenderResult,
} from 'visualizer/plugin';

export interface RemoteEngineOptions {
  /** The API's base URL, e.g. `https://render.example.com`; requests go to `<baseUrl>/v1/renders`. */
  baseUrl: string;
  apiKey: string;
  /** How long one render may take before it fails as `render_timeout` (transient: tried again, or on the next engine). */
  timeoutMs?: number;
}

/** The API's answer to a render: the image, base64-encoded. */
interface RenderAnswer {
  image: { data: string; mimeType: string };
}

/** The API's error body, `{ error: { code, message } }`; `code` says what kind of refusal it is. */
interface ErrorAnswer {
  error?: { code?: string; message?: string };
}

const vendor = 'The remote render API';

function isRenderAnswer(body: unknown): body is RenderAnswer {
  const image = (body as RenderAnswer | null)?.image;
  return typeof image?.data === 'string' && image.data.length > 0 && typeof image.mimeType === 'string';
}

/** An answer that is not a 2xx, as the port's vocabulary names it (see `renderErrorCodes`). */
function failure(status: number, text: string, retryAfter: string | null): RenderError {
  let body: ErrorAnswer = {};
  try {
    body = JSON.parse(text) as ErrorAnswer;
  } catch {
    // A proxy's HTML error page: the status alone says what happened.
  }
  const message = body.error?.message ?? `${vendor} answered ${status}.`;
  if (status === 422 && body.error?.code === 'moderation') return new RenderError('content_blocked', message, false);
  if (status === 422 && body.error?.code === 'unusable_photo') return new RenderError('photo_unusable', message, false);
  // Our own account refused (a wrong key, no credit left) is the operator's to fix, not the shop's request.
  if (status === 401 || status === 402 || status === 403)
    return new RenderError(
      'renderer_unavailable',
      `${vendor} refused this service's account (${status}): ${message}`,
      true,
    );
  if (status === 408 || status === 429 || status >= 500) {
    return new RenderError('renderer_unavailable', `${vendor} is unavailable (${status}): ${message}`, true, {
      retryAfterMs: parseRetryAfter(retryAfter ?? undefined, Date.now()) ?? undefined,
    });
  }
  return new RenderError('render_failed', `${vendor} refused the request (${status}): ${message}`, false);
}

/**
 * A render engine that sends the photo and products to a remote HTTP API and returns its image.
 * The kit's `vendorImage` and `fitToSize` do the image work (upright inputs, the long side paid
 * for), so this package carries no image library of its own.
 */
export function createRemoteEngine({ baseUrl, apiKey, timeoutMs = 60_000 }: RemoteEngineOptions): RenderEngine {
  const url = `${baseUrl.replace(/\/+$/, '')}/v1/renders`;

  async function render(request: RenderRequest): Promise<RenderResult> {
    if (request.signal?.aborted) throw new RenderError('render_timeout', 'The render was aborted before it started.');
    const photo = await vendorImage(request.photo, 'photo');
    const products = await Promise.all(
      request.products.map((product) => vendorImage(product.image, `image of product ${product.productId}`)),
    );
    const body = JSON.stringify({
      mode: request.mode,
      size: request.imageSize,
      hint: request.hint,
      photo: { data: photo.bytes.toString('base64'), mimeType: photo.mimeType },
      products: request.products.map((product, index) => ({
        title: product.productTitle,
        dimensions: product.dimensions,
        data: products[index]!.bytes.toString('base64'),
        mimeType: products[index]!.mimeType,
      })),
    });

    const timeout = AbortSignal.timeout(timeoutMs);
    let status: number;
    let text: string;
    let retryAfter: string | null;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'application/json' },
        body,
        redirect: 'error',
        signal: request.signal ? AbortSignal.any([request.signal, timeout]) : timeout,
      });
      ({ status } = response);
      retryAfter = response.headers.get('retry-after');
      text = await response.text();
    } catch (error) {
      if (request.signal?.aborted)
        throw new RenderError('render_timeout', `The render was aborted before ${vendor} answered.`);
      if (timeout.aborted) throw new RenderError('render_timeout', `${vendor} did not answer within ${timeoutMs} ms.`);
      throw new RenderError(
        'renderer_unavailable',
        `${vendor} could not be reached: ${(error as Error).message}`,
        true,
        { cause: error },
      );
    }
    if (status < 200 || status > 299) throw failure(status, text, retryAfter);

    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      throw new RenderError('renderer_unavailable', `${vendor} answered ${status} with a body that is not JSON.`, true);
    }
    if (!isRenderAnswer(answer))
      throw new RenderError('renderer_unavailable', `${vendor} answered ${status} without an image.`, true);
    return fitToSize(Buffer.from(answer.image.data, 'base64'), request.imageSize, vendor);
  }

  return { name: 'remote-engine', render };
}
