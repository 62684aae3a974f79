import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { H3, toNodeHandler } from 'h3';

/**
 * The floor for API throughput: a bare h3 v2 app on node:http with nothing but the routes the
 * benchmark gives it (no middleware, auth, validation or database), listening on loopback.
 */
export async function startBareH3(routes: (app: H3) => void): Promise<{ url: string; close(): Promise<void> }> {
  const app = new H3();
  routes(app);
  const server = createServer(toNodeHandler(app));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
