import type { H3 } from 'h3';
import { requireSession, services, pathId, httpRateLimit } from '../core/http/app-module-api.ts';

/**
 * `GET /dashboard/generations/{id}/engine`: the name of the engine that rendered the
 * organization's generation, as plain text (204 when none did, or it is not the organization's).
 * The dashboard's own route, for a session only, like its assets: which vendor rendered is the
 * operator's concern, so it is neither in the API's Generation resource nor the OpenAPI document,
 * and it answers text rather than JSON, which the API's routes alone answer.
 */
export function renderEngineRoute(app: H3) {
  app.get('/dashboard/generations/:id/engine', async (event) => {
    const caller = await requireSession(event);
    const { limits, config, persistence } = services(event);
    await httpRateLimit(limits, 'api-read', config.rateLimits.read, 'for this user').take(caller.id);
    const id = pathId(event, 'id', 'generation');
    const engine = await persistence.generations.renderEngineOf(caller.organizationId, id);
    const headers = {
      'content-type': 'text/plain; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    };
    return engine === null ? new Response(null, { status: 204, headers }) : new Response(engine, { headers });
  });
}
