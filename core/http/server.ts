import { createServer, type Server } from 'node:http';
import type { AwilixContainer } from 'awilix';
import { toNodeHandler, type H3 } from 'h3';
import type { Cradle } from '../cradle.ts';
import { createHttpApp } from './app.ts';
import type { AppModule } from './app-module.ts';
import { answerClientError } from './client-error.ts';
import { listen } from './listen.ts';
import { drainUnreadBody } from './unread-body.ts';

export interface RunningServer {
  /** Where the server listens, e.g. http://127.0.0.1:3000. */
  url: string;
  server: Server;
  /** Stops accepting connections, lets in-flight requests finish (up to the timeout), then resolves. */
  close(): Promise<void>;
}

export interface HttpServerOptions {
  port: number;
  host: string;
  /** Application modules whose routes the server adds to the API's (the CLI passes the demo shop and the SDK's bundles). */
  modules?: readonly AppModule[];
  /** Wraps the app's fetch handler: the tests' hook to check every answer against the OpenAPI document. */
  wrapFetch?: (fetch: H3['fetch']) => H3['fetch'];
}

export async function startHttpServer(
  container: AwilixContainer<Cradle>,
  { port, host, modules = [], wrapFetch }: HttpServerOptions,
): Promise<RunningServer> {
  const { ids, config } = container.cradle;
  const headersTimeout = Math.min(config.headersTimeoutMs, config.requestTimeoutMs);
  const app = createHttpApp(container, modules);
  // The adapter reads only the app's `fetch`, so a wrapped one stands in for the app.
  const handle = toNodeHandler(wrapFetch ? ({ fetch: wrapFetch((request) => app.fetch(request)) } as H3) : app);
  // Once stopping, a connection is closed as soon as its answer is sent: kept alive, it would hold
  // the stop open for keepAliveTimeoutMs. A request that arrives then is answered `Connection:
  // close`; one in flight leaves its connection idle, and a sweep while stopping closes it (a
  // listener on every response would cost every request).
  let closing = false;
  const idleSweepMs = 50;
  const server = createServer(
    {
      headersTimeout,
      requestTimeout: config.requestTimeoutMs,
      // Node looks for expired requests this often (30 s by default, longer than a short timeout).
      connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(headersTimeout / 4))),
    },
    (req, res) => {
      if (closing) res.shouldKeepAlive = false;
      drainUnreadBody(req, res);
      return handle(req, res);
    },
  );
  server.on('clientError', (error, socket) => answerClientError(error, socket, () => ids.id('req_')));
  // An idle kept-alive connection is closed after keepAliveTimeoutMs: longer than a load balancer's
  // own idle timeout, so the balancer closes it first and never reuses one we are closing.
  server.keepAliveTimeout = config.keepAliveTimeoutMs;
  const url = await listen(server, port, host);
  return {
    url,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        const forced = setTimeout(() => {
          container.cradle.logger.warn('stopping: cutting the connections still open after shutdownTimeoutMs', {
            shutdownTimeoutMs: container.cradle.config.shutdownTimeoutMs,
          });
          server.closeAllConnections();
        }, container.cradle.config.shutdownTimeoutMs);
        const sweep = setInterval(() => server.closeIdleConnections(), idleSweepMs);
        server.close(() => {
          clearTimeout(forced);
          clearInterval(sweep);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
