import { createHmac, timingSafeEqual } from 'node:crypto';
import { getCookie, type H3Event } from 'h3';
import type { Config } from '../../config/schema.ts';
import type { Session } from '../domain/accounts.ts';
import { ApiError } from '../domain/errors.ts';

/**
 * The dashboard's session cookie and the checks that make it safe to accept on /v1: a CSRF token
 * on every unsafe request, and no unsafe request from a page of another origin. A cookie is sent by
 * the browser whoever asks, so these stand in for the intent a Bearer header proves by itself.
 */

export const sessionCookieName = 'visualizer_session';
export const csrfHeaderName = 'x-csrf-token';

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);
export const isUnsafeMethod = (method: string) => !safeMethods.has(method.toUpperCase());

/** The session token the browser sent, if any. */
export const sessionToken = (event: H3Event): string | undefined => getCookie(event, sessionCookieName) || undefined;

/**
 * Stateless: HMAC-SHA256 of "csrf" keyed by the session token. A page of another origin can make
 * the browser send the cookie, but cannot read it nor any answer that would reveal this value.
 */
export const csrfTokenFor = (sessionToken: string) =>
  createHmac('sha256', sessionToken).update('csrf').digest('base64url');

const csrfRefused = (message: string) => new ApiError('authorization_error', 'csrf_token_invalid', message);

/**
 * Refuses a request from a page of another origin: browsers send `Origin` on every cross-origin
 * request and on same-origin unsafe ones, so a present Origin must be the dashboard's own.
 */
export function checkOrigin(event: H3Event, config: Pick<Config, 'publicUrl'>) {
  const origin = event.req.headers.get('origin');
  if (origin === null) return;
  if (origin !== new URL(config.publicUrl).origin) {
    throw csrfRefused(
      `Requests from origin '${origin}' are refused: the dashboard signs in from ${new URL(config.publicUrl).origin} only.`,
    );
  }
}

/** The checks for an unsafe request authenticated by the cookie: same origin, and the CSRF header. */
export function checkCsrf(event: H3Event, token: string, config: Pick<Config, 'publicUrl'>) {
  checkOrigin(event, config);
  const presented = event.req.headers.get(csrfHeaderName);
  if (!presented)
    throw csrfRefused(
      "This request is authenticated by the session cookie and changes something: send the session's csrfToken as 'X-CSRF-Token'.",
    );
  const expected = Buffer.from(csrfTokenFor(token));
  const given = Buffer.from(presented);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw csrfRefused("The 'X-CSRF-Token' header does not match this session.");
}

/** The cookie's path: the public URL's path, so a deployment under a prefix keeps its cookie to itself. */
const cookiePath = (config: Pick<Config, 'publicUrl'>) => new URL(config.publicUrl).pathname.replace(/\/+$/, '') || '/';

function cookieAttributes(config: Pick<Config, 'publicUrl'>, maxAgeSeconds: number) {
  const attributes = [`Path=${cookiePath(config)}`, `Max-Age=${maxAgeSeconds}`, 'HttpOnly', 'SameSite=Lax'];
  if (new URL(config.publicUrl).protocol === 'https:') attributes.push('Secure');
  return attributes.join('; ');
}

/** Sets the cookie until the session's absolute expiry. */
export function setSessionCookie(
  event: H3Event,
  config: Pick<Config, 'publicUrl'>,
  token: string,
  session: Session,
  now: number,
) {
  const maxAge = Math.max(0, Math.floor((session.expiresAt - now) / 1000));
  event.res.headers.append('set-cookie', `${sessionCookieName}=${token}; ${cookieAttributes(config, maxAge)}`);
}

/** Clears the cookie (sign-out, a revoked current session); said on errors too, so a dead cookie goes away. */
export function clearSessionCookie(event: H3Event, config: Pick<Config, 'publicUrl'>, { onError = false } = {}) {
  const value = `${sessionCookieName}=; ${cookieAttributes(config, 0)}`;
  event.res.headers.append('set-cookie', value);
  if (onError) event.res.errHeaders.append('set-cookie', value);
}
