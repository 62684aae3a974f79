import type { AwilixContainer } from 'awilix';
import { H3, type H3Event } from 'h3';
import type { Cradle } from '../cradle.ts';
import { ApiError } from '../domain/errors.ts';
import { attachState } from './context.ts';
import { errorResponse } from './errors.ts';
import { requestIdFor, withRequestId } from './request-id.ts';
import { httpAnswerRecorder } from '../metrics/http.ts';
import { routeLimits } from './rate-limit.ts';
import { apiAreas } from './routes/areas.ts';
import { openApiRoutes } from './routes/openapi.ts';
import type { AppModule } from './app-module.ts';

/** `/v1/generations/`: a path the router matched only by dropping its trailing slash, on a route that did not ask for it. */
const strayTrailingSlash = (event: H3Event) =>
  event.url.pathname.length > 1 &&
  event.url.pathname.endsWith('/') &&
  event.context.matchedRoute?.meta?.trailingSlash !== true;

/**
 * The HTTP app: every request gets an id, answered in `x-request-id`; every error, whether
 * thrown by a handler, the router or the framework, leaves as the spec's envelope. `modules`
 * add their routes after the API's, under the same request ids and error envelope.
 */
export function createHttpApp(container: AwilixContainer<Cradle>, modules: readonly AppModule[] = []): H3 {
  const { ids, logger } = container.cradle;
  const databaseUnavailable = (error: unknown) => container.cradle.persistence.isUnavailable(error);
  const app = new H3({
    silent: true,
    // Errors raised before any middleware (a malformed URL, say) still get the envelope.
    onError: (error, event) =>
      errorResponse(error, requestIdFor(event.req.headers.get('x-request-id'), ids), logger, databaseUnavailable),
  });

  const recordAnswer = httpAnswerRecorder(container.cradle.metrics, logger);
  // Everything a request needs around its route, in one layer: its id and the services, the
  // envelope for whatever it throws, its metrics.
  app.use(async (event, next) => {
    const startedAt = performance.now();
    const requestId = requestIdFor(event.req.headers.get('x-request-id'), ids);
    attachState(event, { requestId, services: container.cradle });
    let answer: unknown;
    try {
      // No route matched. Said here rather than by a catch-all route, which would also catch a HEAD
      // that h3 answers with the path's GET route when no route matched it (a CDN's or a load
      // balancer's check of an image or /healthz).
      if (!event.context.matchedRoute || strayTrailingSlash(event)) {
        throw new ApiError('not_found_error', 'route_not_found', `No route ${event.req.method} ${event.url.pathname}.`);
      }
      answer = withRequestId(event, await next(), requestId);
    } catch (error) {
      answer = errorResponse(error, requestId, logger, databaseUnavailable);
    }
    recordAnswer(event, requestId, startedAt, answer instanceof Response ? answer.status : (event.res.status ?? 200));
    return answer;
  });

  // From the limits port: one budget per key across every process sharing its store.
  const limits = routeLimits(container.cradle.limits, container.cradle.config);

  for (const area of apiAreas) area.routes(app, limits, container.cradle.config);
  openApiRoutes(app);
  for (const module of modules) module.routes(app, container.cradle.config);
  return app;
}
