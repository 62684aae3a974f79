import { retryAfterMs } from './retry-after.ts';
import type { ErrorType, Generation } from './types.ts';

export interface VisualizerErrorFields {
  status: number;
  type: ErrorType;
  code: string;
  message: string;
  param: string | null;
  requestId: string | null;
  /** Milliseconds the service asked to wait (`Retry-After`), when it said. */
  retryAfterMs: number | null;
}

/**
 * The service answered with an error envelope (`{ error: { type, code, message, param } }`).
 * Branch on `code` (stable) or on the subclass, which follows `type`; quote `requestId` (the
 * response's `x-request-id`) when asking for help, since the server log is keyed by it.
 */
export class VisualizerError extends Error implements VisualizerErrorFields {
  readonly status: number;
  readonly type: ErrorType;
  readonly code: string;
  readonly param: string | null;
  readonly requestId: string | null;
  readonly retryAfterMs: number | null;

  constructor(fields: VisualizerErrorFields) {
    super(fields.message);
    this.name = new.target.name;
    this.status = fields.status;
    this.type = fields.type;
    this.code = fields.code;
    this.param = fields.param;
    this.requestId = fields.requestId;
    this.retryAfterMs = fields.retryAfterMs;
  }
}

/** 401: a missing, malformed, unknown or revoked key, or the wrong kind of key for the route. */
export class AuthenticationError extends VisualizerError {}
/** 403: e.g. `insufficient_credits`, `store_not_allowed`, `organization_mismatch`. */
export class AuthorizationError extends VisualizerError {}
/** 400, 408, 413, 415, 431: the request itself is at fault; `param` names the field when one is. */
export class InvalidRequestError extends VisualizerError {}
/** 404: `resource_missing` (unknown id or another organization's) or `route_not_found`. */
export class NotFoundError extends VisualizerError {}
/** 409: named by the specification; the service answers none today. */
export class ConflictError extends VisualizerError {}
/** 429 after the client's own retries: `retryAfterMs` says when to try again. */
export class RateLimitError extends VisualizerError {}
/** 5xx: `internal_error` (quote `requestId`), `database_unavailable`, `storage_unavailable`. */
export class ApiError extends VisualizerError {}

const classes: Record<ErrorType, typeof VisualizerError> = {
  authentication_error: AuthenticationError,
  authorization_error: AuthorizationError,
  invalid_request_error: InvalidRequestError,
  not_found_error: NotFoundError,
  conflict_error: ConflictError,
  rate_limit_error: RateLimitError,
  api_error: ApiError,
};

/**
 * The typed error for a non-2xx answer. `body` is what openapi-fetch read (parsed JSON when it
 * was JSON); an answer without the envelope, such as a proxy's HTML 502, still becomes an error
 * of the type its status implies, with code `unexpected_response`.
 */
export function errorFromResponse(response: Response, body: unknown): VisualizerError {
  const requestId = response.headers.get('x-request-id');
  const envelope = isEnvelope(body) ? body.error : null;
  const type = envelope && envelope.type in classes ? envelope.type : typeForStatus(response.status);
  const ErrorClass = classes[type];
  return new ErrorClass({
    status: response.status,
    type,
    code: envelope?.code ?? 'unexpected_response',
    message:
      envelope?.message ??
      `Unexpected ${response.status} response${typeof body === 'string' && body ? `: ${body.slice(0, 200)}` : ''}`,
    param: envelope?.param ?? null,
    requestId,
    retryAfterMs: retryAfterMs(response.headers.get('retry-after')),
  });
}

function typeForStatus(status: number): ErrorType {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'authorization_error';
  if (status === 404) return 'not_found_error';
  if (status === 409) return 'conflict_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 400 && status < 500) return 'invalid_request_error';
  return 'api_error';
}

function isEnvelope(
  body: unknown,
): body is { error: { type: ErrorType; code: string; message: string; param: string | null } } {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const error = (body as { error: unknown }).error;
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'string' &&
    typeof (error as { type?: unknown }).type === 'string'
  );
}

/** The request never got an answer (DNS, refused or reset connection, TLS), after any retries. */
export class ConnectionError extends Error {
  constructor(method: string, url: string, cause: unknown) {
    super(`Could not reach Visualizer (${method} ${url}): ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = 'ConnectionError';
  }
}

/** `generations.wait` saw the generation fail: `code` is its `error.code` (e.g. `image_fetch_failed`). */
export class GenerationFailedError extends Error {
  readonly code: string;
  constructor(readonly generation: Generation) {
    super(generation.error?.message ?? `Generation ${generation.id} failed`);
    this.name = 'GenerationFailedError';
    this.code = generation.error?.code ?? 'unknown';
  }
}

/** `generations.wait` gave up: the generation was still processing when the timeout passed. */
export class GenerationTimeoutError extends Error {
  constructor(
    readonly generationId: string,
    readonly timeoutMs: number,
    /** The last state seen, when any poll answered. */
    readonly generation: Generation | null,
  ) {
    super(`Generation ${generationId} was still processing after ${timeoutMs} ms`);
    this.name = 'GenerationTimeoutError';
  }
}
