/** The error types the spec allows in the envelope `{ error: { type, code, message, param } }`. */
export type ApiErrorType =
  | 'authentication_error'
  | 'authorization_error'
  | 'invalid_request_error'
  | 'rate_limit_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'api_error';

/**
 * Every code the service answers with. A closed list, so each one has its HTTP status in
 * core/http/error-status.ts and a code without one fails to compile.
 */
export type ApiErrorCode =
  // invalid_request_error
  | 'bad_request'
  | 'body_too_large'
  | 'endpoint_disabled'
  | 'endpoint_limit_reached'
  | 'headers_too_large'
  | 'idempotency_key_invalid'
  | 'image_too_large'
  | 'invalid_attribution_window'
  | 'invalid_credits'
  | 'invalid_email'
  | 'invalid_image'
  | 'invalid_json'
  | 'invalid_link'
  | 'invalid_name'
  | 'invalid_role'
  | 'malformed_request'
  | 'method_not_allowed'
  | 'parameter_invalid'
  | 'password_too_long'
  | 'password_too_short'
  | 'request_timeout'
  | 'unsupported_media_type'
  // authentication_error
  | 'api_key_revoked'
  | 'invalid_api_key'
  | 'invalid_credentials'
  | 'invalid_metrics_token'
  | 'malformed_authorization'
  | 'missing_api_key'
  | 'not_signed_in'
  | 'session_expired'
  // authorization_error
  | 'csrf_token_invalid'
  | 'insufficient_credits'
  | 'insufficient_role'
  | 'organization_mismatch'
  | 'origin_not_allowed'
  | 'session_required'
  | 'store_not_allowed'
  // not_found_error
  | 'generation_deleted'
  | 'generation_expired'
  | 'resource_missing'
  | 'route_not_found'
  // conflict_error
  | 'email_taken'
  | 'last_admin'
  // rate_limit_error
  | 'daily_cap_reached'
  | 'daily_credit_cap_reached'
  | 'rate_limited'
  | 'too_many_streams'
  // api_error
  | 'database_unavailable'
  | 'internal_error'
  | 'storage_unavailable';

export interface ApiErrorDetails {
  /** When the caller may try again, for a limit that runs out or an outage that passes. */
  retryAfterSeconds?: number;
  /** The failure behind it, logged but never shown to the caller. */
  cause?: unknown;
}

/**
 * The one error every layer throws when a caller did something wrong: what went wrong, never how
 * a protocol says so. The HTTP layer turns it into the envelope with the status of its code; the
 * CLI prints its message.
 */
export class ApiError extends Error {
  /** What an HTTP caller is told, when it must differ from `message` (which the CLI and logs show). */
  publicMessage?: string;
  readonly retryAfterSeconds?: number;
  constructor(
    readonly type: ApiErrorType,
    readonly code: ApiErrorCode,
    message: string,
    readonly param: string | null = null,
    { retryAfterSeconds, cause }: ApiErrorDetails = {},
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'ApiError';
    if (retryAfterSeconds !== undefined) this.retryAfterSeconds = retryAfterSeconds;
  }

  toEnvelope() {
    return {
      error: { type: this.type, code: this.code, message: this.publicMessage ?? this.message, param: this.param },
    };
  }
}

/**
 * Our outage, not the caller's mistake: the caller may simply retry in a second. `cause`, the
 * failure behind it, is logged where the request is answered, with the request's id.
 */
export function unavailable(
  code: 'database_unavailable' | 'storage_unavailable',
  what: string,
  advice = 'Retry in a moment; a create retried with the same Idempotency-Key is never done twice.',
  cause?: unknown,
) {
  return new ApiError('api_error', code, `${what} ${advice}`, null, { retryAfterSeconds: 1, cause });
}

/** The shape of the ids this service issues (see IdGenerator). */
const issuedId = /^[a-z]+_[0-9A-Za-z]{24}$/;

/**
 * An unknown resource. HTTP callers see the id repeated only when it has the shape of an issued id:
 * any other text came from whoever wrote the URL or body, perhaps a link made to put words in the
 * service's mouth. The CLI's operator sees the id as typed.
 */
export function notFound(what: string, id: string, param: string | null = 'id') {
  const error = new ApiError('not_found_error', 'resource_missing', `No such ${what}: '${id}'.`, param);
  if (!issuedId.test(id)) error.publicMessage = `No such ${what}.`;
  return error;
}
