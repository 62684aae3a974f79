import type { H3 } from 'h3';
import { ApiError } from '../../domain/errors.ts';
import { services } from '../context.ts';

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
    let object;
    try {
      object = await cdn.get(key, 'public');
    } catch {
      throw notFound(); // an unsafe key is refused by the adapter; to a caller it is simply not there
    }
    if (!object) throw notFound();
    const headers = {
      'content-type': object.contentType,
      etag: object.etag,
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
    };
    if (event.req.headers.get('if-none-match') === object.etag) return new Response(null, { status: 304, headers });
    return new Response(object.body as Uint8Array<ArrayBuffer>, { status: 200, headers: { ...headers, 'content-length': String(object.body.length) } });
  });
}
