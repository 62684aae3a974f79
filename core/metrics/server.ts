import { createServer } from 'node:http';
import { listen } from '../http/listen.ts';
import { metricsContentType, type Metrics } from './registry.ts';
import { scrapeAllowed } from './scrape.ts';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/**
 * A small HTTP server of its own for a process without the API (`worker`): `GET /metrics`
 * (Prometheus text; with `token`, only for `Authorization: Bearer <token>`) and `GET /healthz`.
 */
export async function startMetricsServer(
  metrics: Metrics,
  { port, host, token }: { port: number; host: string; token?: string },
): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://metrics').pathname;
    const answer = (status: number, type: string, body: string) =>
      res
        .writeHead(status, { 'content-type': type, 'cache-control': 'no-store' })
        .end(req.method === 'HEAD' ? undefined : body);
    if (req.method !== 'GET' && req.method !== 'HEAD') return answer(405, 'text/plain', 'method not allowed\n');
    if (path === '/healthz') return answer(200, 'application/json', '{"status":"ok"}');
    if (path !== '/metrics') return answer(404, 'text/plain', 'not found\n');
    if (!scrapeAllowed(token, req.headers.authorization))
      return answer(401, 'text/plain', 'send the metrics token as Authorization: Bearer <token>\n');
    metrics.scrape().then(
      (text) => answer(200, metricsContentType, text),
      (error: unknown) => answer(500, 'text/plain', `scrape failed: ${String(error)}\n`),
    );
  });
  // Scrapes are short; an idle scraper's connection must not hold a stopping worker open.
  server.keepAliveTimeout = 5_000;
  const url = await listen(server, port, host);
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
