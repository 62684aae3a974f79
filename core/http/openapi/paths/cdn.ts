import { allowedKeyCharacters, MAX_KEY_LENGTH } from '../../../domain/blob-keys.ts';
import { fileExtension } from '../../../imaging/variants.ts';
import { exampleCdnKey } from '../examples.ts';
import { cachedFileHeaders, errorResponses, ifNoneMatchParameter, security } from '../helpers.ts';
import type { PathFragment } from '../types.ts';

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
