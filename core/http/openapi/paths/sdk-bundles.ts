import { cachedFileHeaders, errorResponses, ifNoneMatchParameter, security } from '../helpers.ts';
import type { PathFragment } from '../types.ts';

const script = { 'text/javascript': { schema: { type: 'string' } } };
const encoding = {
  'content-encoding': { description: '`gzip` when the request accepted it.', schema: { type: 'string' } },
};

/** The browser SDK's bundles, served by the `sdk/serve-bundles.ts` app module (see docs/sdk.md). */
export const sdkBundlePaths: PathFragment = {
  '/widgets/embed.js': {
    get: {
      operationId: 'getSdkLoader',
      summary: 'The browser SDK loader',
      description:
        'The script every shop page includes: `<script src="…/widgets/embed.js" async></script>`. Cached 5 minutes and revalidated by `ETag`, so a release reaches pages quickly.',
      tags: ['Browser SDK'],
      security: security.none,
      parameters: [ifNoneMatchParameter],
      responses: {
        '200': {
          description: 'The loader script (gzipped when accepted).',
          headers: { ...cachedFileHeaders, ...encoding },
          content: script,
        },
        '304': { description: 'Not modified.', headers: cachedFileHeaders },
        ...errorResponses({ 500: ['internal_error'] }),
      },
    },
  },
  '/widgets/{file}': {
    get: {
      operationId: 'getSdkWidgetBundle',
      summary: 'The widget UI bundle the loader fetches',
      description:
        'Named by its content hash (`widget.<hash>.js`) and cached for a year; the loader knows the current name. Any other name is 404.',
      tags: ['Browser SDK'],
      security: security.none,
      parameters: [
        {
          name: 'file',
          in: 'path',
          required: true,
          description: 'The bundle name, `widget.<hash>.js`.',
          schema: { type: 'string' },
        },
        ifNoneMatchParameter,
      ],
      responses: {
        '200': {
          description: 'The widget script (gzipped when accepted).',
          headers: { ...cachedFileHeaders, ...encoding },
          content: script,
        },
        '304': { description: 'Not modified.', headers: cachedFileHeaders },
        ...errorResponses({ 404: ['route_not_found'], 500: ['internal_error'] }),
      },
    },
  },
};
