import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { H3 } from 'h3';
import { ApiError } from '../../domain/errors.ts';
import { answersTrailingSlash } from '../app-module.ts';
import { serveStaticAsset, staticAsset, type StaticAsset } from '../static-asset.ts';
import { cachedFileHeaders, errorResponses, ifNoneMatchParameter, security } from '../openapi/helpers.ts';
import type { PathFragment } from '../openapi/types.ts';

/**
 * `GET /docs`: the OpenAPI document (`/openapi.json`) as a browsable reference, drawn by Swagger UI
 * from `swagger-ui-dist`, served from node_modules by the app itself (no CDN: it works offline and
 * behind a strict CSP). The page has no inline script or style; every URL in it is relative, so a
 * deployment under a path prefix (`https://shop.example/visualizer/docs`) keeps its prefix.
 */

const swaggerUiDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/**
 * Starts Swagger UI on the document the page names, resolved against the page (so a path prefix
 * is kept). The document's server is relative (`.`), which holds behind any prefix but reads as
 * ". - This service" in the server selector: the page shows the address it resolves to instead.
 * No validator badge (it would call validator.swagger.io) and no top bar (whose URL box would
 * fetch any document the reader types).
 */
const initializer = `"use strict";
(function () {
  var root = document.getElementById("swagger-ui");
  var documentUrl = new URL(root.getAttribute("data-openapi-url"), document.baseURI).href;
  fetch(documentUrl)
    .then(function (response) { return response.json(); })
    .then(function (spec) {
      (spec.servers || []).forEach(function (server) {
        server.url = new URL(server.url, documentUrl).href.replace(/\\/$/, "");
      });
      window.ui = SwaggerUIBundle({
        spec: spec,
        domNode: root,
        deepLinking: true,
        validatorUrl: null,
        defaultModelsExpandDepth: 0,
        docExpansion: "list"
      });
    });
})();
`;

const pageStyle =
  'html { box-sizing: border-box; overflow-y: scroll; }\n*, *::before, *::after { box-sizing: inherit; }\nbody { margin: 0; background: #fafafa; }\n';

const assetTypes: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
};

const asset = (name: string, body: Buffer) => staticAsset(body, assetTypes[path.extname(name)]!);

interface ReferenceAssets {
  /** The asset folder's name: a hash of every asset, so a new Swagger UI or initializer is a new URL. */
  version: string;
  files: Map<string, StaticAsset>;
  html: string;
}

const escapeAttribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

function loadAssets(): ReferenceAssets {
  const files = new Map<string, StaticAsset>();
  for (const name of ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png', 'favicon-16x16.png']) {
    // Without the source map comment: the map is not served, and devtools would ask for it.
    const bytes = readFileSync(path.join(swaggerUiDir, name));
    const body = name.endsWith('.png')
      ? bytes
      : Buffer.from(bytes.toString('utf8').replace(/\n?\/[/*]# sourceMappingURL=\S+(?: ?\*\/)?\s*$/, '\n'));
    files.set(name, asset(name, body));
  }
  files.set('reference-page.js', asset('reference-page.js', Buffer.from(initializer)));
  files.set('reference-page.css', asset('reference-page.css', Buffer.from(pageStyle)));
  const digest = createHash('sha256');
  for (const [name, file] of files) digest.update(`${name} ${file.etag}\n`);
  const version = digest.digest('hex').slice(0, 16);
  // `docs/assets/…` and `openapi.json` are relative to the page, `{base}/docs`: they resolve under `{base}/`.
  const at = (name: string) => escapeAttribute(`docs/assets/${version}/${name}`);
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Visualizer API reference</title>
<link rel="stylesheet" href="${at('swagger-ui.css')}">
<link rel="stylesheet" href="${at('reference-page.css')}">
<link rel="icon" type="image/png" href="${at('favicon-32x32.png')}" sizes="32x32">
<link rel="icon" type="image/png" href="${at('favicon-16x16.png')}" sizes="16x16">
</head>
<body>
<div id="swagger-ui" data-openapi-url="openapi.json"></div>
<script src="${at('swagger-ui-bundle.js')}"></script>
<script src="${at('reference-page.js')}"></script>
</body>
</html>
`;
  return { version, files, html };
}

let loaded: ReferenceAssets | undefined;
/** Read and compressed once, on the first request for the page or an asset. */
const referenceAssets = () => (loaded ??= loadAssets());

/**
 * What Swagger UI needs, and no more: its own scripts and styles, `data:` images (its CSS draws
 * icons as data URIs) and requests to this origin (the document, and "Try it out"). React sets
 * element styles through the CSSOM, which `style-src` does not govern, so no 'unsafe-inline'.
 */
export const referencePageCsp = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

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

/**
 * `/docs` (cached 5 minutes, like the document it shows) and its assets under
 * `/docs/assets/{version}/{file}`, named by content and cached for a year. An asset of another
 * version is a 404, as a stale widget bundle is.
 */
export function referencePageRoutes(app: H3) {
  app.get(
    '/docs',
    (event) => {
      // The router takes `/docs/` for `/docs`, but the page's relative URLs would then resolve under
      // `/docs/`: send the reader to the page's one address (relative, so a path prefix is kept).
      if (event.url.pathname.endsWith('/'))
        return new Response(null, { status: 301, headers: { location: '../docs' } });
      return new Response(referenceAssets().html, {
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'public, max-age=300',
          'content-security-policy': referencePageCsp,
          'x-content-type-options': 'nosniff',
          'referrer-policy': 'no-referrer',
        },
      });
    },
    answersTrailingSlash,
  );

  app.get('/docs/assets/:version/:file', (event) => {
    const { version, files } = referenceAssets();
    const [, , , askedVersion, name] = event.url.pathname.split('/');
    const file = askedVersion === version && name ? files.get(name) : undefined;
    if (!file)
      throw new ApiError('not_found_error', 'route_not_found', `No route ${event.req.method} ${event.url.pathname}.`);
    return serveStaticAsset(event, file, { cacheControl: 'public, max-age=31536000, immutable' });
  });
}
