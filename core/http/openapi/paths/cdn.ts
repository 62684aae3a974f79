import { cachedFileHeaders, errorResponses, ifNoneMatchParameter, security } from '../helpers.ts';
import type { PathFragment } from '../types.ts';

const image = { schema: { type: 'string', contentMediaType: 'application/octet-stream' } };

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
        { name: 'key', in: 'path', required: true, description: 'The object key, slashes included (e.g. `generations/agen_…/detail.webp`).', schema: { type: 'string' }, 'x-multi-segment': true },
        ifNoneMatchParameter,
      ],
      responses: {
        '200': { description: 'The image.', headers: cachedFileHeaders, content: { 'image/webp': image, 'image/jpeg': image, 'image/png': image, 'image/*': image } },
        '304': { description: 'Not modified: the `If-None-Match` validator still matches.', headers: cachedFileHeaders },
        ...errorResponses({ 404: ['resource_missing'], 500: ['internal_error'], 503: ['storage_unavailable'] }),
      },
    },
  },
};
