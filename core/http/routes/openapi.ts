import type { H3 } from 'h3';
import { openApiText } from '../openapi/document.ts';

/** The OpenAPI document, byte for byte what docs/openapi.json holds (nothing in it depends on the host). */
export function openApiRoutes(app: H3) {
  app.get(
    '/openapi.json',
    () =>
      new Response(openApiText, {
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'cache-control': 'public, max-age=300',
          // Readers such as Swagger UI or a code generator on another origin may fetch it.
          'access-control-allow-origin': '*',
        },
      }),
  );
}
