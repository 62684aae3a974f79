import { RenderError } from '../../kit/plugin.ts';

/**
 * How FASHN's documented failures map onto the render error vocabulary. Two kinds, as
 * docs.fashn.ai/api-overview/error-handling splits them: API-level errors (an HTTP status and
 * `{ error, message }`, no prediction id) and runtime errors (`status: "failed"` with
 * `error: { name, message }` in a 200 from /v1/status/{id}).
 */

const clip = (text: string, max = 300) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** An API-level error body: `{ "error": "UnauthorizedAccess", "message": "Unauthorized: Invalid token" }`. */
export interface FashnApiError {
  error?: unknown;
  message?: unknown;
}

/** A runtime error: `{ "name": "PoseError", "message": "…" }`. */
export interface FashnRuntimeError {
  name?: unknown;
  message?: unknown;
}

/**
 * An HTTP answer other than 2xx. 400 `BadRequest` is the request refused as invalid; 401
 * `UnauthorizedAccess` (and a 403, which FASHN does not document but a proxy may send) refuse this
 * service's key; 404 `NotFound` on /v1/run is a model name this account cannot use, and on
 * /v1/status a prediction no longer tracked: both the vendor's side, worth another engine. All
 * three 429s (`RateLimitExceeded`, `ConcurrencyLimitExceeded`, `OutOfCredits`) and 5xx are the
 * vendor being unavailable to us now; `OutOfCredits` is the operator's to fix, like a bad key.
 */
export function httpError(
  status: number,
  body: FashnApiError | null,
  text: string,
  retryAfterMs: number | undefined,
): RenderError {
  const name = typeof body?.error === 'string' ? body.error : undefined;
  const message = clip(typeof body?.message === 'string' ? body.message : text.trim()) || 'no details';
  const seen = `HTTP ${status}${name ? ` ${name}` : ''}`;
  // A redirect or another non-error status FASHN does not document: not its answer, as a proxy's page is not.
  if (status < 400)
    return new RenderError('renderer_unavailable', `FASHN answered with an undocumented ${seen}.`, true);
  if (status === 408 || status === 429 || status >= 500) {
    return new RenderError('renderer_unavailable', `FASHN is unavailable (${seen}): ${message}`, true, {
      retryAfterMs,
    });
  }
  if (status === 401 || status === 403 || status === 404) {
    return new RenderError(
      'renderer_unavailable',
      `FASHN refused this service's account or model (${seen}): ${message}`,
      true,
    );
  }
  return new RenderError('render_failed', `FASHN refused the request (${seen}): ${message}`, false);
}

/**
 * A prediction that ended `failed`. The names are the SDK's `PredictionStatusResponse.Error.name`:
 * - `ContentModerationError` (moderation flagged the photo or the product) and `ThirdPartyError`
 *   (a processor's content restrictions, "modify image inputs") refuse the content: shown to shops.
 * - `PoseError` (no body pose found in the photo) is a photo the engine cannot use: shown.
 * - `PipelineError`, `3rdPartyProviderError`, `InternalServerError` say "retry": transient.
 * - `ImageLoadError`, `InputValidationError`, `LoRALoadError` and any other name: final. We send
 *   images we decoded ourselves, so one FASHN cannot load is not a passing fault.
 */
export function runtimeError(error: FashnRuntimeError | null | undefined): RenderError {
  const name = typeof error?.name === 'string' ? error.name : 'an error without a name';
  const message = clip(typeof error?.message === 'string' ? error.message : '') || 'no details';
  switch (name) {
    case 'ContentModerationError':
    case 'ThirdPartyError':
      return new RenderError('content_blocked', `FASHN refused the content (${name}): ${clip(message, 200)}`, false);
    case 'PoseError':
      return new RenderError(
        'photo_unusable',
        `FASHN could not detect a body pose in the photo (${name}): ${clip(message, 200)}`,
        false,
      );
    case 'PipelineError':
    case '3rdPartyProviderError':
    case 'InternalServerError':
      return new RenderError('renderer_unavailable', `FASHN failed while rendering (${name}): ${message}`, true);
    default:
      return new RenderError('render_failed', `FASHN could not render the try-on (${name}): ${message}`, false);
  }
}
