import { cachedFileHeaders, errorResponses, ifNoneMatchParameter, security } from '../helpers.ts';
import type { PathFragment } from '../types.ts';

const text = { schema: { type: 'string' } };
const binary = { schema: { type: 'string', contentMediaType: 'application/octet-stream' } };

/** The browsable reference (`core/http/routes/reference-page.ts`): this document drawn by Swagger UI. */
export const referencePagePaths: PathFragment = {
  '/docs': {
    get: {
      operationId: 'getReferencePage',
      summary: 'This document as a browsable reference',
      description:
        'An HTML page that draws `/openapi.json` with Swagger UI, served by the service itself (no CDN; it works offline). It has no inline script or style and is sent with a `Content-Security-Policy` allowing only this origin (and `data:` images). Its URLs are relative, so it works under a path prefix. Cached 5 minutes. `/docs/` redirects (301) here.',
      tags: ['Meta'],
      security: security.none,
      responses: {
        '200': {
          description: 'The page.',
          headers: {
            'content-security-policy': {
              description: "`default-src 'self'`, and what Swagger UI needs besides.",
              schema: { type: 'string' },
            },
            'cache-control': { schema: { type: 'string' } },
          },
          content: { 'text/html': text },
        },
        ...errorResponses({ 500: ['internal_error'] }),
      },
    },
  },
  '/docs/assets/{version}/{file}': {
    get: {
      operationId: 'getReferencePageAsset',
      summary: 'A script, style sheet or icon of the reference page',
      description:
        "Swagger UI's files from the `swagger-ui-dist` package and the page's own initializer. `version` is a hash of them all, so they are cached for a year (`immutable`); the page names the current one, and any other version or file is 404. Text is gzipped when the request accepts it.",
      tags: ['Meta'],
      security: security.none,
      parameters: [
        {
          name: 'version',
          in: 'path',
          required: true,
          description: "The assets' version, as the page names it.",
          schema: { type: 'string' },
        },
        {
          name: 'file',
          in: 'path',
          required: true,
          description: 'e.g. `swagger-ui-bundle.js`, `swagger-ui.css`, `reference-page.js`.',
          schema: { type: 'string' },
        },
        ifNoneMatchParameter,
      ],
      responses: {
        '200': {
          description: 'The file.',
          headers: {
            ...cachedFileHeaders,
            'content-encoding': {
              description: '`gzip` when the request accepted it (text only).',
              schema: { type: 'string' },
            },
          },
          content: { 'text/javascript': text, 'text/css': text, 'image/png': binary },
        },
        '304': { description: 'Not modified.', headers: cachedFileHeaders },
        ...errorResponses({ 404: ['route_not_found'], 500: ['internal_error'] }),
      },
    },
  },
};
