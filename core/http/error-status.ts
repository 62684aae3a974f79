import type { ApiError, ApiErrorCode } from '../domain/errors.ts';

/** The HTTP status of each error code: mostly its type's (401, 403, 404 …), a few narrower ones. */
export const statusByCode: Record<ApiErrorCode, number> = {
  bad_request: 400,
  body_too_large: 413,
  endpoint_disabled: 400,
  endpoint_limit_reached: 400,
  headers_too_large: 431,
  idempotency_key_invalid: 400,
  image_too_large: 400,
  invalid_attribution_window: 400,
  invalid_credits: 400,
  invalid_email: 400,
  invalid_image: 400,
  invalid_json: 400,
  invalid_link: 400,
  invalid_name: 400,
  invalid_role: 400,
  malformed_request: 400,
  method_not_allowed: 405,
  parameter_invalid: 400,
  password_too_long: 400,
  password_too_short: 400,
  request_timeout: 408,
  unsupported_media_type: 415,
  api_key_revoked: 401,
  invalid_api_key: 401,
  invalid_credentials: 401,
  invalid_metrics_token: 401,
  malformed_authorization: 401,
  missing_api_key: 401,
  not_signed_in: 401,
  session_expired: 401,
  csrf_token_invalid: 403,
  insufficient_credits: 403,
  insufficient_role: 403,
  organization_mismatch: 403,
  origin_not_allowed: 403,
  session_required: 403,
  store_not_allowed: 403,
  generation_deleted: 410,
  generation_expired: 410,
  resource_missing: 404,
  route_not_found: 404,
  email_taken: 409,
  last_admin: 409,
  daily_cap_reached: 429,
  daily_credit_cap_reached: 429,
  rate_limited: 429,
  too_many_streams: 429,
  database_unavailable: 503,
  internal_error: 500,
  storage_unavailable: 503,
};

const apiKeyChallenge = { 'www-authenticate': 'Bearer realm="visualizer"' };

/**
 * Headers a code always answers with: the challenge of the credential a 401 asks for, and a closed
 * connection after an oversized body, whose unread rest is still on the socket.
 */
const headersByCode: Partial<Record<ApiErrorCode, Record<string, string>>> = {
  missing_api_key: apiKeyChallenge,
  malformed_authorization: apiKeyChallenge,
  invalid_api_key: apiKeyChallenge,
  api_key_revoked: apiKeyChallenge,
  invalid_metrics_token: { 'www-authenticate': 'Bearer realm="metrics"' },
  body_too_large: { connection: 'close' },
};

/** The status and headers an error is answered with. */
export function httpAnswerOf(error: ApiError): { status: number; headers: Record<string, string> } {
  const headers = { ...headersByCode[error.code] };
  if (error.retryAfterSeconds !== undefined) headers['retry-after'] = String(error.retryAfterSeconds);
  return { status: statusByCode[error.code], headers };
}
