import { RenderError } from '../../kit/plugin.ts';

/**
 * fal's error bodies, as docs.fal.ai documents them:
 * - model errors (docs.fal.ai/errors): `{ detail: [{ loc, msg, type, url?, ctx?, input? }] }`,
 *   e.g. a 422 `content_policy_violation` whose `loc` names the flagged field;
 * - request errors (…/model-apis/request-errors): `{ detail: "…", error_type: "request_timeout" }`,
 *   the type also in the `X-Fal-Error-Type` header;
 * - FastAPI's own validation errors share the model errors' shape (`detail` an array).
 */
export interface FalErrorItem {
  loc?: unknown[];
  msg?: unknown;
  type?: unknown;
}

export interface FalErrorBody {
  detail?: string | FalErrorItem[];
  error_type?: string;
}

const clip = (text: string, max = 300) => (text.length > max ? `${text.slice(0, max)}…` : text);

function items(body: FalErrorBody | null): FalErrorItem[] {
  return Array.isArray(body?.detail)
    ? body.detail.filter((item): item is FalErrorItem => typeof item === 'object' && item !== null)
    : [];
}

/** What a fal error says, for the log: each item's type, field and message, or the flat detail. */
export function describe(body: FalErrorBody | null, text: string): string {
  const listed = items(body).map((item) => {
    const field = Array.isArray(item.loc) ? item.loc.filter((part) => part !== 'body').join('.') : '';
    return `${String(item.type ?? 'error')}${field ? ` at ${field}` : ''}: ${String(item.msg ?? '')}`;
  });
  if (listed.length) return clip(listed.join('; '));
  if (typeof body?.detail === 'string') return clip(`${body.error_type ? `${body.error_type}: ` : ''}${body.detail}`);
  return clip(text.trim()) || 'no details';
}

/** The item a content checker raised: fal's documented moderation refusal. */
const flagged = (body: FalErrorBody | null) => items(body).find((item) => item.type === 'content_policy_violation');

/** Where an input sits in `loc`, `body` left out: `['model_image']`, or `['image_urls', 0]` for the first of a list. */
export type InputPath = readonly (string | number)[];

/** An item located at the photo's input (no person found in it, a pose the model cannot take, …). */
const aboutPhoto = (body: FalErrorBody | null, photo: readonly InputPath[]) =>
  items(body).find((item) => {
    if (item.type === 'content_policy_violation' || !Array.isArray(item.loc)) return false;
    const loc = item.loc[0] === 'body' ? item.loc.slice(1) : item.loc;
    return photo.some(
      (path) => path.length <= loc.length && path.every((part, index) => String(loc[index]) === String(part)),
    );
  });

/**
 * A failed fal answer (submit, status, result) as the port's vocabulary. `photo` says where the
 * shopper's photo sat in the input, so an error located there reads as the photo's; `retryable` is
 * fal's `X-Fal-Retryable` header ("retrying the exact same request might succeed").
 */
export function falError(
  status: number,
  body: FalErrorBody | null,
  text: string,
  options: { retryAfterMs?: number; retryable?: boolean; photo: readonly InputPath[] },
): RenderError {
  const detail = describe(body, text);
  const seen = `HTTP ${status}`;
  // 408, 429 and 5xx: fal's queue, a runner or the network; fal does not bill 5xx, and another try may pass.
  if (status === 408 || status === 429 || status >= 500) {
    return new RenderError('renderer_unavailable', `fal.ai is unavailable (${seen}): ${detail}`, true, {
      retryAfterMs: options.retryAfterMs,
    });
  }
  // A key that is missing, wrong or revoked (401, 403), or a model id fal does not know (404): the operator's to fix.
  if (status === 401 || status === 403 || status === 404) {
    return new RenderError('renderer_unavailable', `fal.ai refused this service's account (${seen}): ${detail}`, true);
  }
  const blocked = flagged(body);
  if (blocked) {
    // Shown to shops: fal's `msg` is written for end users (docs.fal.ai/errors, "For Human Display").
    return new RenderError(
      'content_blocked',
      `fal.ai refused the content: ${clip(String(blocked.msg ?? 'flagged by a content checker'), 200)}`,
      false,
    );
  }
  const photo = aboutPhoto(body, options.photo);
  if (photo)
    return new RenderError(
      'photo_unusable',
      `fal.ai cannot use the photo: ${clip(String(photo.msg ?? photo.type), 200)}`,
      false,
    );
  // A passing fault the model reported with a 4xx: worth another attempt, like a 5xx.
  if (options.retryable)
    return new RenderError('renderer_unavailable', `fal.ai failed, retryable (${seen}): ${detail}`, true, {
      retryAfterMs: options.retryAfterMs,
    });
  return new RenderError('render_failed', `fal.ai refused the request (${seen}): ${detail}`, false);
}
