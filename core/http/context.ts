import type { H3Event } from 'h3';
import type { Cradle } from '../cradle.ts';
import type { Session, User } from '../domain/accounts.ts';
import type { ApiKey, ApiKeyKind } from '../domain/api-keys.ts';
import { ApiError } from '../domain/errors.ts';
import { childLogger, type Logger } from '../logger.ts';
import { checkCsrf, isUnsafeMethod, sessionToken } from './session-auth.ts';

/** A caller authenticated by an API key (`Authorization: Bearer`). */
export interface KeyCaller {
  via: 'key';
  /** The key's id: the identity rate limits count against. */
  id: string;
  organizationId: string;
  apiKey: ApiKey;
}

/** A dashboard user authenticated by the session cookie. */
export interface SessionCaller {
  via: 'session';
  /** The user's id: the identity rate limits count against. */
  id: string;
  organizationId: string;
  user: User;
  session: Session;
  /** The cookie's token, which the CSRF token is derived from. */
  token: string;
}

export type Caller = KeyCaller | SessionCaller;

/**
 * What each request carries: its id, the services, and who it authenticated as. Every
 * service is a singleton, so requests share the container's cradle rather than each opening an
 * awilix scope (which cost 6–10 µs and its garbage per request, and held nothing of the request).
 */
export interface RequestState {
  requestId: string;
  services: Cradle;
  caller?: Caller;
  /** Made on first use: most requests log nothing. */
  logger?: Logger;
}

// On the event's own context object: a WeakMap beside the event cost each request an ephemeron
// write and a hash lookup per read.
const stateKey = Symbol('visualizer.requestState');
type WithState = { [stateKey]?: RequestState };

export function attachState(event: H3Event, state: RequestState) {
  (event.context as WithState)[stateKey] = state;
}

export function requestState(event: H3Event): RequestState {
  const state = (event.context as WithState)[stateKey];
  if (!state) throw new Error('request state missing: the request middleware did not run');
  return state;
}

export const services = (event: H3Event) => requestState(event).services;

/** The logger for what a request's handling logs: every line carries its `requestId`. */
export function requestLogger(event: H3Event): Logger {
  const state = requestState(event);
  return (state.logger ??= childLogger(state.services.logger, { requestId: state.requestId }));
}

const viewerRefused = () => new ApiError('authorization_error', 'insufficient_role', 'Viewers have read-only access.');

/** The session of the cookie, with the CSRF and Origin checks for unsafe methods. */
async function sessionCaller(event: H3Event, token: string): Promise<SessionCaller> {
  const { accounts, config } = requestState(event).services;
  const { session, user } = await accounts.authenticate(token);
  if (isUnsafeMethod(event.req.method)) checkCsrf(event, token, config);
  return { via: 'session', id: user.id, organizationId: session.organizationId, user, session, token };
}

/**
 * Authenticates the request (once) and returns the caller. A `secret` route also takes the
 * dashboard's session cookie when no Authorization header is sent (a header always wins), and
 * refuses a viewer's unsafe request; a `conversion` route takes its key only.
 */
export async function requireKey(event: H3Event, kind: ApiKeyKind): Promise<Caller> {
  const state = requestState(event);
  if (state.caller) return state.caller;
  const authorization = event.req.headers.get('authorization');
  const token = kind === 'secret' && authorization === null ? sessionToken(event) : undefined;
  if (token) {
    const caller = await sessionCaller(event, token);
    if (caller.user.role !== 'admin' && isUnsafeMethod(event.req.method)) throw viewerRefused();
    state.caller = caller;
  } else {
    const apiKey = await state.services.authenticator.authenticate(authorization, kind);
    state.caller = { via: 'key', id: apiKey.id, organizationId: apiKey.organizationId, apiKey };
  }
  return state.caller;
}

/** The id of the API key a caller used, or null for a dashboard session (what generations record). */
export const apiKeyIdOf = (caller: Caller) => (caller.via === 'key' ? caller.id : null);

/**
 * Authenticates a route only dashboard sessions may call: keys, users and sessions are managed by
 * people, so a leaked secret key cannot mint keys or users (403 `session_required`). `admin`
 * routes refuse viewers whatever the method; others leave role checks to the route.
 */
export async function requireSession(event: H3Event, options: { admin?: boolean } = {}): Promise<SessionCaller> {
  const state = requestState(event);
  if (event.req.headers.get('authorization') !== null) {
    throw new ApiError(
      'authorization_error',
      'session_required',
      'This route is for dashboard sessions only: API keys cannot manage keys, users or sessions.',
    );
  }
  if (!state.caller) {
    const token = sessionToken(event);
    if (!token)
      throw new ApiError(
        'authentication_error',
        'not_signed_in',
        'Sign in to the dashboard first: this route needs a session.',
      );
    state.caller = await sessionCaller(event, token);
  }
  const caller = state.caller as SessionCaller;
  if (options.admin && caller.user.role !== 'admin')
    throw new ApiError('authorization_error', 'insufficient_role', 'Only admins may do this.');
  return caller;
}
