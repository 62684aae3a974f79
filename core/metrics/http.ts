import type { H3Event, Middleware } from 'h3';
import type { Logger } from '../logger.ts';
import type { Metrics } from './registry.ts';

/**
 * Counts and times every answer by method, route pattern (`/v1/generations/:id`, never the raw
 * path, so the series stay few) and status; a path no route matched is `unmatched`. The time runs
 * until the answer is ready to send: a streamed body (the event stream) is not in it. At `debug`
 * each answer is also logged, as an access log.
 */
export function httpMetrics(metrics: Metrics, logger: Logger): Middleware {
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
  const record = (event: H3Event, started: number, status: number) => {
    const seconds = (performance.now() - started) / 1000;
    const method = event.req.method;
    const route = event.context.matchedRoute?.route ?? 'unmatched';
    const { count, time } = seriesOf(method, route, status);
    count();
    time(seconds);
    logger.debug?.('request answered', { method, route, path: event.url.pathname, status, durationMs: Math.round(seconds * 1000) });
  };
  // Chained with then() rather than awaited: one promise less on every request.
  return (event, next) => {
    const started = performance.now();
    return Promise.resolve(next()).then(
      (answer) => {
        record(event, started, answer instanceof Response ? answer.status : (event.res.status ?? 200));
        return answer;
      },
      (error: unknown) => {
        record(event, started, 500);
        throw error;
      },
    );
  };
}
