import type { AwilixContainer } from 'awilix';
import type { H3Event } from 'h3';
import type { Cradle } from '../cradle.ts';
import type { ApiKey, ApiKeyKind } from '../ports/persistence.ts';

/** What each request carries: its id, its own container scope, and the key it authenticated with. */
export interface RequestState {
  requestId: string;
  scope: AwilixContainer<Cradle>;
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

export const services = (event: H3Event) => requestState(event).scope.cradle;

/** Authenticates the request with a key of `kind` (once) and returns it. */
export async function requireKey(event: H3Event, kind: ApiKeyKind): Promise<ApiKey> {
  const state = requestState(event);
  state.apiKey ??= await state.scope.cradle.authenticator.authenticate(event.req.headers.get('authorization'), kind);
  return state.apiKey;
}
