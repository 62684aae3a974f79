import { errorResponses, jsonContent, security } from '../helpers.ts';
import type { PathFragment } from '../types.ts';

export const openApiPaths: PathFragment = {
  '/openapi.json': {
    get: {
      operationId: 'getOpenApiDocument',
      summary: 'This OpenAPI 3.1 document',
      description: 'The same bytes as `docs/openapi.json` in the repository. Paths are relative to the service\'s public URL.',
      tags: ['Meta'],
      security: security.none,
      responses: {
        '200': { description: 'The OpenAPI document.', content: jsonContent({ type: 'object', description: 'An OpenAPI 3.1 document.' }) },
        ...errorResponses({ 500: ['internal_error'] }),
      },
    },
  },
};
