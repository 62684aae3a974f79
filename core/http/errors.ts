import { HTTPError } from 'h3';
import { ApiError, unavailable } from '../domain/errors.ts';
import type { Logger } from '../logger.ts';
import { httpAnswerOf } from './error-status.ts';

/** Framework errors that are the caller's fault, mapped to the spec's envelope instead of a 500. */
function fromHttpError(error: HTTPError): ApiError | null {
  switch (error.status) {
    case 400:
      return new ApiError(
        'invalid_request_error',
        'bad_request',
        error.message || 'The request could not be understood.',
      );
    case 404:
      return new ApiError('not_found_error', 'route_not_found', 'No such route.');
    case 405:
      return new ApiError('invalid_request_error', 'method_not_allowed', 'This method is not allowed on this route.');
    case 413:
      return bodyTooLarge();
    case 415:
      return new ApiError('invalid_request_error', 'unsupported_media_type', error.message);
    default:
      return null;
  }
}

export const bodyTooLarge = (limit?: number) =>
  new ApiError(
    'invalid_request_error',
    'body_too_large',
    `The request body is too large${limit ? ` (limit ${limit} bytes)` : ''}.`,
  );

/**
 * Turns anything thrown while handling a request into the error envelope. A database that cannot
 * answer now is a 503 with `Retry-After`; other unknown errors become a bare `api_error` 500, their
 * details in the log, keyed by the request id; so is the cause of an outage a service answered (see
 * `unavailable`).
 */
export function errorResponse(
  thrown: unknown,
  requestId: string,
  logger: Logger,
  databaseUnavailable: (error: unknown) => boolean,
): Response {
  let error = thrown instanceof ApiError ? thrown : null;
  if (!error && HTTPError.isError(thrown)) {
    const cause = (thrown as HTTPError).cause;
    error = cause instanceof ApiError ? cause : fromHttpError(thrown as HTTPError);
  }
  if (error && httpAnswerOf(error).status === 503 && error.cause !== undefined) {
    logger.warn(error.message, { requestId, code: error.code, error: String(error.cause) });
  }
  if (!error && databaseUnavailable(thrown)) {
    logger.warn('database unavailable', { requestId, error: String(thrown) });
    error = unavailable('database_unavailable', 'The service is briefly unavailable.');
  }
  if (!error) {
    logger.error('unhandled error', {
      requestId,
      error: thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown),
    });
    error = new ApiError(
      'api_error',
      'internal_error',
      `Something went wrong on our side. Quote request id ${requestId} if you report it.`,
    );
  }
  const { status, headers } = httpAnswerOf(error);
  return new Response(JSON.stringify(error.toEnvelope()), {
    status,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'x-content-type-options': 'nosniff',
      'x-request-id': requestId,
      ...headers,
    },
  });
}
