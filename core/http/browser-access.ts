import { getRequestIP, type H3Event } from 'h3';
import { ApiError } from '../domain/errors.ts';
import type { WidgetRecord } from '../domain/widget.ts';
import { parseJson, readText } from './body.ts';

/**
 * What keyless endpoints called from shoppers' browsers share: the client address for per-IP
 * limits (made in rate-limit.ts, saying whose budget ran out), bodies browsers can send without a preflight,
 * and CORS headers on successes and errors alike (so the page can read either).
 */

/** The client's address; behind a proxy that overwrites X-Forwarded-For, `trustProxy` reads it from there. */
export const clientAddress = (event: H3Event, trustProxy: boolean) =>
  getRequestIP(event, { xForwardedFor: trustProxy }) ?? 'unknown';

/** Sets a header on the response whether the handler succeeds or throws. */
export function setAlways(event: H3Event, name: string, value: string) {
  event.res.headers.set(name, value);
  event.res.errHeaders.set(name, value);
}

/**
 * A JSON body sent as `text/plain` (what `fetch` and `sendBeacon` send for a string, with no
 * CORS preflight) or `application/json`; `limit` bytes at most, counted as they arrive.
 */
export async function readBrowserJson(event: H3Event, limit: number): Promise<unknown> {
  const contentType = event.req.headers.get('content-type') ?? 'text/plain';
  if (!/^(?:text\/plain|application\/json)\s*(?:;|$)/i.test(contentType)) {
    throw new ApiError(
      'invalid_request_error',
      'unsupported_media_type',
      'The body must be JSON sent as text/plain or application/json.',
    );
  }
  return parseJson(await readText(event, limit));
}

/** Open to any page: the conversion collector is identified by store id, like analytics beacons. */
export function allowAnyOrigin(event: H3Event) {
  setAlways(event, 'access-control-allow-origin', '*');
  setAlways(event, 'access-control-expose-headers', 'retry-after, x-request-id');
}

const normalizedOrigin = (origin: string) => (URL.canParse(origin) ? new URL(origin).origin : origin);

/**
 * Lets the request through only from one of the widget's allowed origins, and answers with that
 * origin in `Access-Control-Allow-Origin`. A missing or other Origin is 403 `origin_not_allowed`.
 */
export function allowWidgetOrigin(event: H3Event, widget: WidgetRecord): string {
  setAlways(event, 'vary', 'Origin');
  const origin = event.req.headers.get('origin');
  // Browsers leave Origin out of same-origin GETs (a page served by the service itself, such as the
  // demo shop, or a shop that proxies the service under its own domain). Such a read needs no CORS
  // header; a cross-origin read always carries Origin and is checked below.
  if (
    !origin &&
    (event.req.method === 'GET' || event.req.method === 'HEAD') &&
    event.req.headers.get('sec-fetch-site') === 'same-origin'
  )
    return '';
  if (!origin || origin === 'null' || !widget.allowedOrigins.includes(normalizedOrigin(origin))) {
    throw new ApiError(
      'authorization_error',
      'origin_not_allowed',
      origin
        ? `Origin '${origin}' is not allowed to use this widget; add it to the widget's allowed origins.`
        : 'This endpoint is called from web pages: the Origin header is missing.',
      null,
    );
  }
  setAlways(event, 'access-control-allow-origin', origin);
  setAlways(event, 'access-control-expose-headers', 'retry-after, x-request-id');
  return origin;
}

/** Answers a CORS preflight (the request already passed the origin check). */
export function preflight(event: H3Event, methods: string, maxAgeSeconds: number) {
  event.res.status = 204;
  event.res.headers.set('access-control-allow-methods', methods);
  event.res.headers.set('access-control-allow-headers', 'content-type');
  event.res.headers.set('access-control-max-age', String(maxAgeSeconds));
  return null;
}
