import type { H3 } from 'h3';
import { openApiText } from '../openapi/document.ts';
import { serveStaticAsset, staticAsset } from '../static-asset.ts';

const document = staticAsset(Buffer.from(openApiText), 'application/json; charset=utf-8');

/**
 * The OpenAPI document, byte for byte what docs/openapi.json holds (nothing in it depends on the
 * host); gzipped it is a twentieth of its size, which the reference page fetches on every visit.
 */
export function openApiRoutes(app: H3) {
  app.get('/openapi.json', (event) =>
    serveStaticAsset(event, document, {
      cacheControl: 'public, max-age=300',
      // Readers such as Swagger UI or a code generator on another origin may fetch it.
      headers: { 'access-control-allow-origin': '*' },
    }),
  );
}
