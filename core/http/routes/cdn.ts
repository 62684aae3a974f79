import type { H3 } from 'h3';
import { allowedKeyCharacters, isSafeKey, MAX_KEY_LENGTH } from '../../domain/blob-keys.ts';
import { ApiError, unavailable } from '../../domain/errors.ts';
import { ifNoneMatchMatches } from '../conditional.ts';
import { requestLogger, services } from '../context.ts';
import { fileExtension } from '../../imaging/variants.ts';
import { exampleCdnKey } from '../openapi/examples.ts';
import { cachedFileHeaders, errorResponses, ifNoneMatchParameter, security } from '../openapi/helpers.ts';
import type { PathFragment } from '../openapi/types.ts';

const notFound = () => new ApiError('not_found_error', 'resource_missing', 'No such image.');

const image = { schema: { type: 'string', contentMediaType: 'application/octet-stream' } };
/** The formats renders are stored in, and any other image (the demo's product photos). */
const imageTypes = [...Object.keys(fileExtension).map((format) => `image/${format}`), 'image/*'];

export const cdnPaths: PathFragment = {
  '/cdn/{key}': {
    get: {
      operationId: 'getCdnImage',
      summary: 'A public image (generated images and their variants)',
      description:
        'Served by the app only when the CDN adapter is `local`; otherwise the images live on your CDN and this answers 404. `key` may contain slashes. Images never change under their key, so they are cached for a year.',
      tags: ['Images'],
      security: security.none,
      parameters: [
        {
          name: 'key',
          in: 'path',
          required: true,
          description:
            'The object key, slashes included, as the image URLs of a generation name it (`gen/agen_…/…/detail.webp`).',
          schema: { type: 'string', maxLength: MAX_KEY_LENGTH, pattern: allowedKeyCharacters.source },
          example: exampleCdnKey,
          'x-multi-segment': true,
        },
        ifNoneMatchParameter,
      ],
      responses: {
        '200': {
          description: 'The image.',
          headers: cachedFileHeaders,
          content: Object.fromEntries(imageTypes.map((type) => [type, image])),
        },
        '304': {
          description: 'Not modified: the `If-None-Match` validator still matches.',
          headers: cachedFileHeaders,
        },
        ...errorResponses({ 404: ['resource_missing'], 500: ['internal_error'], 503: ['storage_unavailable'] }),
      },
    },
  },
};

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
