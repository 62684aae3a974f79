import type { H3 } from 'h3';
import type { Config } from '../../../config/schema.ts';
import { ApiError } from '../../domain/errors.ts';
import { metricsContentType } from '../../metrics/registry.ts';
import { scrapeAllowed } from '../../metrics/scrape.ts';
import { services } from '../context.ts';

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
