import assert from 'node:assert/strict';
import type { UserRole } from '../../core/domain/accounts.ts';
import type { TestApp } from './app.ts';

/** A dashboard session as a browser holds it: the cookie to send back and the CSRF token for changes. */
export interface TestSession {
  userId: string;
  sessionId: string;
  email: string;
  cookie: string;
  csrfToken: string;
  /** Headers for a request made with this session; unsafe ones carry the CSRF token. */
  headers(extra?: Record<string, string>): Record<string, string>;
}

let addresses = 0;
/** A client address of its own (the app must trust X-Forwarded-For), so per-address sign-in limits stay apart. */
export const freshAddress = () => `198.51.100.${++addresses % 250}`;

/** The `name=value` part of a Set-Cookie header. */
export function cookieOf(response: Response): string {
  const header = response.headers.get('set-cookie');
  assert.ok(header, 'a Set-Cookie header');
  return header.split(';')[0]!;
}

export async function sessionFrom(response: Response, email: string): Promise<TestSession> {
  const text = await response.text();
  assert.equal(response.status, 200, text);
  const body = JSON.parse(text);
  const cookie = cookieOf(response);
  return {
    userId: body.user.id,
    sessionId: body.id,
    email,
    cookie,
    csrfToken: body.csrfToken,
    headers: (extra = {}) => ({ cookie, 'x-csrf-token': body.csrfToken, ...extra }),
  };
}

export const jsonPost = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

/** Invites a user through the accounts service and accepts the invitation over HTTP, as the invitee would. */
export async function invitedSession(
  app: TestApp,
  organizationId: string,
  role: UserRole,
  email = `${role}-${Math.random().toString(36).slice(2)}@shop.example`,
  password = 'a long enough password',
) {
  const link = await app.container.cradle.accounts.invite(organizationId, { email, role });
  const response = await fetch(
    `${app.url}/v1/invitations/accept`,
    jsonPost({ token: link.token, password }, { 'x-forwarded-for': freshAddress() }),
  );
  return sessionFrom(response, email);
}

/** Signs in with email and password over HTTP. */
export async function signIn(app: TestApp, email: string, password: string, headers: Record<string, string> = {}) {
  return fetch(
    `${app.url}/v1/session`,
    jsonPost({ email, password }, { 'x-forwarded-for': freshAddress(), ...headers }),
  );
}
