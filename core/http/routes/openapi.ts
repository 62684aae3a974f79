import type { H3 } from 'h3';
import { serveStaticAsset, staticAsset, type StaticAsset } from '../static-asset.ts';

let document: Promise<StaticAsset> | undefined;

/**
 * Built on the first request for it: building it merges the routes' fragments and turns every
 * schema into JSON Schema, work and memory a process that is never asked for it does without.
 */
function openApiDocument(): Promise<StaticAsset> {
  document ??= import('../openapi/document.ts').then(({ openApiText }) =>
    staticAsset(Buffer.from(openApiText), 'application/json; charset=utf-8'),
  );
  return document;
}

/**
 * The OpenAPI document, byte for byte what docs/openapi.json holds (nothing in it depends on the
 * host); gzipped it is a twentieth of its size, which the reference page fetches on every visit.
 */
export function openApiRoutes(app: H3) {
  app.get('/openapi.json', async (event) =>
    serveStaticAsset(event, await openApiDocument(), {
      cacheControl: 'public, max-age=300',
      // Readers such as Swagger UI or a code generator on another origin may fetch it.
      headers: { 'access-control-allow-origin': '*' },
    }),
  );
}
