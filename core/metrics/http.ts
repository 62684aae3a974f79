import type { H3Event } from 'h3';
import type { Logger } from '../logger.ts';
import type { Metrics } from './registry.ts';

/**
 * Counts and times every answer by method, route pattern (`/v1/generations/:id`, never the raw
 * path, so the series stay few) and status; a path no route matched is `unmatched`. The time runs
 * until the answer is ready to send: a streamed body (the event stream) is not in it. At `debug`
 * each answer is also logged, as an access log. A plain function the request's one middleware
 * calls, not a middleware of its own: each h3 layer costs the request promises and a microtask.
 */
/** Routes whose path holds personal data (a widget visitor's id): never logged as received. */
const personalRoutes = new Set([
  '/v1/visitors/:visitorId',
  ...['generations', 'identities', 'conversions'].map((kind) => `/v1/visitors/:visitorId/${kind}`),
]);

export function httpAnswerRecorder(metrics: Metrics, logger: Logger) {
  // Each label set's series, found once: prom-client hashes the labels on every call otherwise.
  const series = new Map<string, { count: () => void; time: (seconds: number) => void }>();
  const seriesOf = (method: string, route: string, status: number) => {
    const key = `${method} ${status} ${route}`;
    let found = series.get(key);
    if (!found) {
      const counter = metrics.httpRequests.labels({ method, route, status: String(status) });
      const histogram = metrics.httpDuration.labels({ method, route });
      series.set(key, (found = { count: () => counter.inc(), time: (seconds) => histogram.observe(seconds) }));
    }
    return found;
  };
  // Undefined below `debug` (see createLogger), so the line's fields are not even built.
  const debug = logger.debug?.bind(logger);
  /** Records the answer to `event`, `startedAt` being its `performance.now()` on arrival. */
  return (event: H3Event, requestId: string, startedAt: number, status: number) => {
    const seconds = (performance.now() - startedAt) / 1000;
    const method = event.req.method;
    const route = event.context.matchedRoute?.route ?? 'unmatched';
    const { count, time } = seriesOf(method, route, status);
    count();
    time(seconds);
    // A visitor id is personal data: the access log of its routes says the pattern, not the path.
    const path = personalRoutes.has(route) ? route : event.url.pathname;
    debug?.('request answered', { requestId, method, route, path, status, durationMs: Math.round(seconds * 1000) });
  };
}
