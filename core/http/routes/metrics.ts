import type { H3 } from 'h3';
import type { Config } from '../../../config/schema.ts';
import { ApiError } from '../../domain/errors.ts';
import { metricsContentType } from '../../metrics/registry.ts';
import { scrapeAllowed } from '../../metrics/scrape.ts';
import { services } from '../context.ts';
import { errorResponses, security } from '../openapi/helpers.ts';
import type { PathFragment } from '../openapi/types.ts';

export const metricsPaths: PathFragment = {
  '/metrics': {
    get: {
      operationId: 'getMetrics',
      summary: 'Prometheus metrics of this process',
      description:
        "For the operator's Prometheus, not the public: HTTP requests by route and status, job queue depth and lag, renders and webhook deliveries by outcome, database pool usage, and the process's CPU, memory and event loop (see docs/operations.md, `Metrics and logs`). With `metrics.token` configured, send it as `Authorization: Bearer <token>`; without one, keep this path off the public load balancer. Absent (404) when `metrics.enabled` is false.",
      tags: ['Health'],
      security: security.none,
      responses: {
        '200': {
          description: 'The Prometheus text format (version 0.0.4).',
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
        ...errorResponses({ 401: ['invalid_metrics_token'], 404: ['route_not_found'], 500: ['internal_error'] }),
      },
    },
  },
};

/**
 * Prometheus metrics of this process, in the text format. Not for the public: with
 * `metrics.token` a scrape must send it as a bearer token; without one, keep `/metrics` off the
 * load balancer's public routes. Absent (404) when `metrics.enabled` is false.
 */
export function metricsRoutes(app: H3, config: Config) {
  if (!config.metrics.enabled) return;
  app.get('/metrics', async (event) => {
    if (!scrapeAllowed(config.metrics.token, event.req.headers.get('authorization'))) {
      throw new ApiError(
        'authentication_error',
        'invalid_metrics_token',
        "Send the metrics token as 'Authorization: Bearer <token>'.",
      );
    }
    const body = await services(event).metrics.scrape();
    return new Response(body, { headers: { 'content-type': metricsContentType, 'cache-control': 'no-store' } });
  });
}
