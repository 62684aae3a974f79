import { RenderError } from '../../kit/plugin.ts';

/**
 * Replicate's failures in the render error vocabulary. HTTP errors are RFC 7807 problem details
 * (`{ title, detail, status }`, as replicate-python's ReplicateError reads them); a prediction that
 * ran and failed carries its reason as a free-text `error` string, with Replicate's own codes
 * (`E1000`…, replicate.com/docs/reference/error-codes) or the model's words in it.
 */

export interface ProblemDetails {
  type?: unknown;
  title?: unknown;
  detail?: unknown;
  status?: unknown;
}

export const clip = (text: string, max = 300) => (text.length > max ? `${text.slice(0, max)}…` : text);

const text = (value: unknown) => (typeof value === 'string' ? value : '');

function describe(problem: ProblemDetails | null, raw: string): string {
  const parts = [text(problem?.title), text(problem?.detail)].filter(Boolean);
  return clip(parts.length ? parts.join(': ') : raw.trim()) || 'no details';
}

/**
 * Replicate refusing this service's account or configuration, not this render: no or a wrong
 * token (401), no permission (403), no credit or a spend limit (402), a model that does not exist
 * (404), or a version that does not exist or is not ours to run (422 "Invalid version or not
 * permitted", github.com/replicate/replicate-python/issues/47). The operator's to fix.
 */
function refusesOurAccount(status: number, problem: ProblemDetails | null): boolean {
  if ([401, 402, 403, 404].includes(status)) return true;
  return status === 422 && /invalid version|not permitted/i.test(text(problem?.title));
}

/** A non-2xx answer of the API. `retryAfterMs` is passed on for every transient one that said it. */
export function httpError(
  status: number,
  problem: ProblemDetails | null,
  raw: string,
  retryAfterMs: number | undefined,
): RenderError {
  const detail = describe(problem, raw);
  // The API answers 2xx or an error; a redirect or other 1xx–3xx is not what it documents.
  if (status < 400)
    return new RenderError(
      'renderer_unavailable',
      `Replicate answered HTTP ${status}, which it does not document: ${detail}`,
      true,
    );
  if (status === 408 || status === 429 || status >= 500) {
    return new RenderError('renderer_unavailable', `Replicate is unavailable (HTTP ${status}): ${detail}`, true, {
      retryAfterMs,
    });
  }
  if (refusesOurAccount(status, problem))
    return new RenderError(
      'renderer_unavailable',
      `Replicate refused this service's account (HTTP ${status}): ${detail}`,
      true,
    );
  return new RenderError('render_failed', `Replicate refused the request (HTTP ${status}): ${detail}`, false);
}

/**
 * A moderation refusal. Replicate documents no code for it: the models' safety checks fail the
 * prediction with their own words. "flagged as sensitive … (E005)" is what Replicate's hosted
 * models say (as integrators report: github.com/pollinations/pollinations/pull/10801,
 * github.com/HeyPuter/puter/pull/3719); older checkers say "NSFW content detected".
 */
const BLOCKED = /\bE005\b|flagged as sensitive|\bnsfw\b|content polic|safety (filter|check)|moderat/i;
/** A photo the model cannot work with: try-on models that find no person, pose or face say so. */
const PHOTO_UNUSABLE =
  /\bno (person|people|human|body|pose|face)s?\b.{0,20}\b(detected|found)\b|(could not|cannot|unable to) (detect|find) (a |any )?(person|human|body|pose|face)/i;
/** Replicate's own codes for a failure of its platform, not of this input: retrying may work. */
const PLATFORM = /\b(E1000|E6716)\b/;

/** A prediction whose status is `failed`, from its `error`. */
export function failedPrediction(error: unknown): RenderError {
  const reason = typeof error === 'string' ? error.trim() : error == null ? '' : JSON.stringify(error);
  if (BLOCKED.test(reason))
    return new RenderError('content_blocked', `Replicate refused the content: ${clip(reason, 200)}`, false);
  if (PHOTO_UNUSABLE.test(reason))
    return new RenderError('photo_unusable', `The model cannot use this photo: ${clip(reason, 200)}`, false);
  if (PLATFORM.test(reason))
    return new RenderError('renderer_unavailable', `Replicate failed the prediction: ${clip(reason)}`, true);
  return new RenderError('render_failed', `Replicate's model failed: ${clip(reason) || 'no reason given'}`, false);
}
