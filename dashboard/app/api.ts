import createClient from 'openapi-fetch';
import type { components, paths } from '../../clients/node/src/schema.ts';

export type Schemas = components['schemas'];
export type Generation = Schemas['Generation'];

/** `GET /v1/session`: who is signed in, and the CSRF token their unsafe requests carry. */
export type SessionResource = Schemas['CurrentSession'];
export type Role = SessionResource['user']['role'];

/** A list page, as every `/v1` list answers. */
export interface Page<T> {
  data: T[];
  has_more: boolean;
}

/** An answer that is not 2xx, with the error envelope's message for people. */
export class ApiFailure extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

/**
 * The API's base: the dashboard lives at `{base}/dashboard/`, so `../` is `{base}/`, and a
 * deployment under a path prefix keeps it.
 */
export const baseUrl = new URL('../', location.href).href.replace(/\/$/, '');

let csrfToken = '';
let onSignedOut: () => void = () => {};

/** Remembers the session's CSRF token (sent with every unsafe request) — empty when signed out. */
export function setCsrfToken(token: string) {
  csrfToken = token;
}
/** Called when an answer says the session is gone (401), so the app shows the sign-in page. */
export function whenSignedOut(handler: () => void) {
  onSignedOut = handler;
}

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The typed client (openapi-fetch over the OpenAPI document's `paths`), same origin, with cookies. */
export const api = createClient<paths>({ baseUrl, credentials: 'same-origin' });
api.use({
  onRequest({ request }) {
    if (!safeMethods.has(request.method) && csrfToken) request.headers.set('x-csrf-token', csrfToken);
    return request;
  },
});

async function failure(response: Response, error: unknown): Promise<ApiFailure> {
  const envelope = (error as { error?: { message?: string; code?: string; param?: string | null } } | undefined)?.error;
  const failed = new ApiFailure(
    envelope?.message ?? `The service answered ${response.status}.`,
    response.status,
    envelope?.code ?? 'unknown',
    envelope?.param ?? null,
  );
  // Signing in with a wrong password is a 401 too: only a lost session sends the reader to sign in.
  if (
    response.status === 401 &&
    csrfToken &&
    !/\/v1\/(session|invitations\/accept)$/.test(new URL(response.url || baseUrl).pathname)
  ) {
    csrfToken = '';
    onSignedOut();
  }
  return failed;
}

/** The answer's data, or an `ApiFailure` thrown with the error envelope's message. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await call;
  } catch {
    throw new ApiFailure('The service could not be reached. Check your connection and try again.', 0, 'network_error');
  }
  if (!result.response.ok) throw await failure(result.response, result.error);
  return result.data as T;
}

/** A human message for anything a handler caught. */
export const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
