import type * as v from 'valibot';
import { pageQuerySchema } from '../params.ts';
import { ref, type SchemaName } from './components.ts';
import { queryParameters } from './query-parameters.ts';
import { requestSchema } from './request-schemas.ts';
import type { JsonSchema, MediaType, Parameter, RequestBody, Response } from './types.ts';

/** Builders the routes' documents share, so every route says the common things the same way. */

export const jsonType = 'application/json';

export const jsonContent = (schema: JsonSchema, example?: unknown): Record<string, MediaType> => ({
  [jsonType]: example === undefined ? { schema } : { schema, example },
});

/** A JSON request body: the schema the route validates it with, named `name`, and an example a reader can paste. */
export const jsonBody = (
  name: string,
  schema: v.GenericSchema,
  example: unknown,
  description?: string,
): RequestBody => ({
  ...(description ? { description } : {}),
  required: true,
  content: jsonContent(requestSchema(name, schema), example),
});

/** A successful JSON answer of a named schema. */
export const ok = (description: string, name: SchemaName, headers?: Response['headers']): Response => ({
  description,
  ...(headers ? { headers } : {}),
  content: jsonContent(ref(name)),
});

/**
 * The security requirement of a route; the document's default is `secretKey`: a secret API key or,
 * from the dashboard, the session cookie (either one). `session` routes take the cookie only.
 */
export const security = {
  secretKey: [{ secretKey: [] }, { sessionCookie: [] }],
  session: [{ sessionCookie: [] }],
  conversionKey: [{ conversionKey: [] }],
  none: [],
} as const satisfies Record<string, Record<string, string[]>[]>;

export const securitySchemes = {
  secretKey: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'visualizer_…',
    description:
      'A secret API key (`visualizer_…`), sent as `Authorization: Bearer visualizer_…`. Server-side only: never put it in a page.',
  },
  conversionKey: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'viz_…',
    description:
      'A conversion key (`viz_…`), sent as `Authorization: Bearer viz_…`. It can only report orders to `/api/webhooks/orders`.',
  },
  sessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'visualizer_session',
    description:
      "The dashboard's session, set by `POST /v1/session` (HttpOnly, SameSite=Lax). Used only when no `Authorization` header is sent. A request other than GET, HEAD or OPTIONS must also send the session's `csrfToken` as `X-CSRF-Token`, and is refused when its `Origin` is not the service's own. Viewers may only read.",
  },
};

/** The CSRF header of unsafe requests made with the session cookie. */
export const csrfTokenParameter: Parameter = {
  name: 'X-CSRF-Token',
  in: 'header',
  description:
    'With the session cookie: the `csrfToken` of `GET /v1/session`; required on this method. Ignored with an API key.',
  schema: { type: 'string' },
};

/** Error codes a route can answer, per HTTP status. */
export type ErrorCodes = Partial<Record<number, readonly string[]>>;

/** Sets every route can answer: our own failure, and a database briefly out of reach. */
export const serverErrors: ErrorCodes = { 500: ['internal_error'], 503: ['database_unavailable'] };
export const authenticationErrors: ErrorCodes = {
  401: ['missing_api_key', 'malformed_authorization', 'invalid_api_key', 'api_key_revoked'],
};
/** A session-only route: no key (403), no or an ended session (401), then the per-caller rate limit. */
export const sessionErrors: ErrorCodes = {
  401: ['not_signed_in', 'session_expired'],
  403: ['session_required'],
  429: ['rate_limited'],
};
/** A session-only route for admins. */
export const adminSessionErrors: ErrorCodes = { ...sessionErrors, 403: ['session_required', 'insufficient_role'] };
/** A keyed route: the key, then its per-key rate limit (`rateLimits.*`). */
export const secretKeyErrors: ErrorCodes = { ...authenticationErrors, 429: ['rate_limited'] };
/** A JSON body read by `readValidJson`. */
export const jsonBodyErrors: ErrorCodes = {
  400: ['invalid_json', 'parameter_invalid'],
  413: ['body_too_large'],
  415: ['unsupported_media_type'],
};
export const queryErrors: ErrorCodes = { 400: ['parameter_invalid'] };
export const notFoundErrors: ErrorCodes = { 404: ['resource_missing'] };

const statusText: Record<number, string> = {
  400: 'The request is invalid: `param` names the field at fault.',
  401: 'No valid key or session was sent.',
  403: 'The key or session may not do this.',
  404: 'No such resource.',
  405: 'The method is not allowed on this route.',
  409: 'The request conflicts with the current state.',
  410: 'Gone: the generation was deleted, with its images.',
  413: 'The request body is too large.',
  415: 'The body is not sent as a supported content type.',
  429: 'Too many requests: retry after `Retry-After` seconds.',
  500: 'Something went wrong on our side; quote `x-request-id` when you report it.',
  503: 'Briefly unavailable: retry after `Retry-After` seconds.',
};

const retryAfter = { description: 'Seconds to wait before retrying.', schema: { type: 'string' } };

/** One status's error envelope, its `code` narrowed to `codes`, so a client can switch on them exhaustively. */
function errorResponse(status: number, codes: readonly string[]): Response {
  const schema = {
    allOf: [
      ref('Error'),
      {
        type: 'object',
        required: ['error'],
        properties: {
          error: { type: 'object', required: ['code'], properties: { code: { enum: [...codes].sort() } } },
        },
      },
    ],
  };
  const headers: Response['headers'] = {};
  if (status === 401)
    headers['www-authenticate'] = {
      description: 'With a missing or bad API key: `Bearer realm="visualizer"`.',
      schema: { type: 'string' },
    };
  if (status === 429 || status === 503) headers['retry-after'] = retryAfter;
  return {
    description: statusText[status] ?? 'An error.',
    ...(Object.keys(headers).length ? { headers } : {}),
    content: jsonContent(schema),
  };
}

/**
 * Error answers many operations give alike, declared once under `components.responses` and
 * referenced wherever an operation's codes at that status are exactly these.
 */
const sharedErrors = {
  ParameterInvalid: [400, ['parameter_invalid']],
  ResourceMissing: [404, ['resource_missing']],
  RouteNotFound: [404, ['route_not_found']],
  BodyTooLarge: [413, ['body_too_large']],
  UnsupportedMediaType: [415, ['unsupported_media_type']],
  RateLimited: [429, ['rate_limited']],
  HeadersTooLarge: [431, ['headers_too_large']],
  InternalError: [500, ['internal_error']],
  DatabaseUnavailable: [503, ['database_unavailable']],
} as const satisfies Record<string, readonly [number, readonly string[]]>;

type Reference = { $ref: string };
const responseRef = (name: keyof typeof sharedErrors | 'UnexpectedError'): Reference => ({
  $ref: `#/components/responses/${name}`,
});
const requestId = { 'x-request-id': { $ref: '#/components/headers/RequestId' } };

export const sharedErrorResponses: Record<string, Response> = {
  ...Object.fromEntries(
    Object.entries(sharedErrors).map(([name, [status, codes]]) => {
      const response = errorResponse(status, codes);
      return [name, { ...response, headers: { ...requestId, ...response.headers } }];
    }),
  ),
  UnexpectedError: {
    description:
      'Any other error, in the same envelope: say 400 `malformed_request` or 408 `request_timeout`, which answer a request that is not valid HTTP/1.1 before any route sees it.',
    headers: requestId,
    content: jsonContent(ref('Error')),
  },
};

/** What every operation can answer besides its own statuses: headers over node's limit (431), and `default`. */
export const everyOperationErrors = { '431': responseRef('HeadersTooLarge'), default: responseRef('UnexpectedError') };

function sharedRef(status: number, codes: readonly string[]): Reference | undefined {
  const name = (Object.keys(sharedErrors) as (keyof typeof sharedErrors)[]).find((key) => {
    const [sharedStatus, sharedCodes] = sharedErrors[key];
    return (
      sharedStatus === status &&
      sharedCodes.length === codes.length &&
      sharedCodes.every((code) => codes.includes(code))
    );
  });
  return name ? responseRef(name) : undefined;
}

const errorAnswer = (status: number, codes: readonly string[]) =>
  sharedRef(status, codes) ?? errorResponse(status, codes);

/** The error envelope for each status of the sets, merged: a shared component where one fits. */
export function errorResponses(...sets: ErrorCodes[]): Record<string, Response | Reference> {
  const merged = new Map<number, Set<string>>();
  for (const set of sets) {
    for (const [status, codes] of Object.entries(set)) {
      const into = merged.get(Number(status)) ?? new Set<string>();
      for (const code of codes ?? []) into.add(code);
      merged.set(Number(status), into);
    }
  }
  const responses: Record<string, Response | Reference> = {};
  for (const status of [...merged.keys()].sort((a, b) => a - b))
    responses[String(status)] = errorAnswer(status, [...merged.get(status)!]);
  return responses;
}

/** The codes an error answer lists, whether inline or a shared component. */
function codesOf(status: number, response: Response | Reference): readonly string[] {
  if ('$ref' in response) {
    const shared = sharedErrors[response.$ref.split('/').pop() as keyof typeof sharedErrors];
    if (!shared) throw new Error(`OpenAPI: the ${status} answer ${response.$ref} lists no codes`);
    return shared[1];
  }
  const schema = response.content?.[jsonType]?.schema as
    | { allOf?: [unknown, { properties: { error: { properties: { code: { enum: string[] } } } } }] }
    | undefined;
  const code = schema?.allOf?.[1]?.properties.error.properties.code;
  if (!code) throw new Error(`OpenAPI: the ${status} answer is not an error envelope`);
  return code.enum;
}

/** Adds `codes` to an operation's documented error `status` (made if absent). */
export function addErrorCodes(
  responses: Record<string, Response | Reference>,
  status: number,
  codes: readonly string[],
) {
  const existing = responses[String(status)];
  responses[String(status)] = errorAnswer(status, [
    ...new Set([...(existing ? codesOf(status, existing) : []), ...codes]),
  ]);
}

/** How every list is paged, in words; the bounds and the default are `pageQuerySchema`'s. */
export const pageNotes = {
  limit: { description: 'How many items to return, 1 to 100.' },
  starting_after: {
    description: 'The id of the last item of the previous page; the page continues after it (newest first).',
  },
};

export const pageParameters: Parameter[] = queryParameters(pageQuerySchema, pageNotes);

export const pathParameter = (name: string, description: string): Parameter => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string' },
});

export const idempotencyKeyParameter: Parameter = {
  name: 'Idempotency-Key',
  in: 'header',
  description:
    'Makes the create safe to retry: a key used before (keys are bound for good, per organization) answers 200 with its original generation and `Idempotent-Replayed: true`, ignoring the new body, and charges nothing. 1 to 255 printable ASCII characters without spaces.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
  example: 'order-1234-try-on',
};

export const requestIdHeader = {
  description:
    'The request id: yours when you sent a sane `x-request-id` (8 to 128 of `[A-Za-z0-9_.:-]`), else one made up (`req_…`). Quote it when you report a problem.',
  schema: { type: 'string' },
};

/** Response headers of files served with validators (CDN images, SDK bundles). */
export const cachedFileHeaders: Response['headers'] = {
  etag: { description: 'A strong validator: send it back as `If-None-Match`.', schema: { type: 'string' } },
  'cache-control': { schema: { type: 'string' } },
};

export const ifNoneMatchParameter: Parameter = {
  name: 'If-None-Match',
  in: 'header',
  description: 'An `ETag` received before: answered 304 when it still matches.',
  schema: { type: 'string' },
};
