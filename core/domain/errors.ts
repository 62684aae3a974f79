/** The error types the spec allows in the envelope `{ error: { type, code, message, param } }`. */
export type ApiErrorType =
  | 'authentication_error'
  | 'authorization_error'
  | 'invalid_request_error'
  | 'rate_limit_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'api_error';

const statusByType: Record<ApiErrorType, number> = {
  authentication_error: 401,
  authorization_error: 403,
  invalid_request_error: 400,
  rate_limit_error: 429,
  not_found_error: 404,
  conflict_error: 409,
  api_error: 500,
};

/**
 * The one error every layer throws when a caller did something wrong. The HTTP layer turns
 * it into the envelope; the CLI prints its message. `status` defaults from the type but can
 * be narrowed (413 for an oversized body is still an `invalid_request_error`).
 */
export class ApiError extends Error {
  readonly status: number;
  /** What an HTTP caller is told, when it must differ from `message` (which the CLI and logs show). */
  publicMessage?: string;
  constructor(
    readonly type: ApiErrorType,
    readonly code: string,
    message: string,
    readonly param: string | null = null,
    status?: number,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status ?? statusByType[type];
  }

  toEnvelope() {
    return { error: { type: this.type, code: this.code, message: this.publicMessage ?? this.message, param: this.param } };
  }
}

/**
 * Our outage, not the caller's mistake: a 503 the caller may simply retry. `cause`, the failure
 * behind it, is logged where the request is answered, with the request's id.
 */
export function unavailable(code: string, what: string, advice = 'Retry in a moment; a create retried with the same Idempotency-Key is never done twice.', cause?: unknown) {
  const error = new ApiError('api_error', code, `${what} ${advice}`, null, 503, { 'retry-after': '1' });
  if (cause !== undefined) error.cause = cause;
  return error;
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
