import type { H3 } from 'h3';
import { isSafeKey } from '../../domain/blob-keys.ts';
import { ApiError, unavailable } from '../../domain/errors.ts';
import { ifNoneMatchMatches } from '../conditional.ts';
import { requestLogger, services } from '../context.ts';

const notFound = () => new ApiError('not_found_error', 'resource_missing', 'No such image.');

/**
 * Public images of a CDN adapter that is served by the app (`local`). Objects never change under
 * their key, so they are cached for a year; private objects are never reachable here.
 */
export function cdnRoutes(app: H3) {
  app.get('/cdn/**', async (event) => {
    const { cdn } = services(event);
    if (!cdn.servedByApp) throw notFound();
    const key = event.url.pathname.slice('/cdn/'.length);
    // A key the store would refuse (`..`, `%2e`, no extension) is, to a caller, simply not there.
    if (!isSafeKey(key)) throw notFound();
    let object;
    try {
      object = await cdn.get(key, 'public');
    } catch (error) {
      // Not a 404, which a browser or a CDN in front may cache (RFC 9111 §4.2.2) for an image that exists.
      requestLogger(event).warn('could not read a public image', { key, error: String(error) });
      throw unavailable('storage_unavailable', 'The image cannot be read just now.', 'Retry in a moment.');
    }
    if (!object) throw notFound();
    const headers = {
      'content-type': object.contentType,
      etag: object.etag,
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
    };
    if (ifNoneMatchMatches(event.req.headers.get('if-none-match'), object.etag))
      return new Response(null, { status: 304, headers });
    return new Response(object.body as Uint8Array<ArrayBuffer>, {
      status: 200,
      headers: { ...headers, 'content-length': String(object.body.length) },
    });
  });
}
