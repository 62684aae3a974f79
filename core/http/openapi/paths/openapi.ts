import { cachedFileHeaders, errorResponses, ifNoneMatchParameter, jsonContent, security } from '../helpers.ts';
import type { PathFragment } from '../types.ts';

export const openApiPaths: PathFragment = {
  '/openapi.json': {
    get: {
      operationId: 'getOpenApiDocument',
      summary: 'This OpenAPI 3.1 document',
      description:
        "The same bytes as `docs/openapi.json` in the repository. Paths are relative to the service's public URL.",
      tags: ['Meta'],
      security: security.none,
      parameters: [ifNoneMatchParameter],
      responses: {
        '200': {
          description: 'The OpenAPI document (gzipped when accepted). Cached 5 minutes and revalidated by `ETag`.',
          headers: {
            ...cachedFileHeaders,
            'content-encoding': { description: '`gzip` when the request accepted it.', schema: { type: 'string' } },
          },
          content: jsonContent({ type: 'object', description: 'An OpenAPI 3.1 document.' }),
        },
        '304': { description: 'Not modified.', headers: cachedFileHeaders },
        ...errorResponses({ 500: ['internal_error'] }),
      },
    },
  },
};
