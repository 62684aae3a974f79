import type { H3Event } from 'h3';
import type { Cradle } from '../cradle.ts';
import type { ApiKey, ApiKeyKind } from '../domain/api-keys.ts';

/**
 * What each request carries: its id, the services, and the key it authenticated with. Every
 * service is a singleton, so requests share the container's cradle rather than each opening an
 * awilix scope (which cost 6–10 µs and its garbage per request, and held nothing of the request).
 */
export interface RequestState {
  requestId: string;
  services: Cradle;
  apiKey?: ApiKey;
}

const states = new WeakMap<H3Event, RequestState>();

export function attachState(event: H3Event, state: RequestState) {
  states.set(event, state);
}

export function requestState(event: H3Event): RequestState {
  const state = states.get(event);
  if (!state) throw new Error('request state missing: the request middleware did not run');
  return state;
}

export const services = (event: H3Event) => requestState(event).services;

/** Authenticates the request with a key of `kind` (once) and returns it. */
export async function requireKey(event: H3Event, kind: ApiKeyKind): Promise<ApiKey> {
  const state = requestState(event);
  state.apiKey ??= await state.services.authenticator.authenticate(event.req.headers.get('authorization'), kind);
  return state.apiKey;
}
