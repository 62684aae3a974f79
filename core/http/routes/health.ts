import type { H3 } from 'h3';
import { services } from '../context.ts';

/** Liveness answers as soon as the server accepts requests; readiness also needs the database. */
export function healthRoutes(app: H3) {
  app.get('/healthz', () => ({ status: 'ok' }));
  app.get('/readyz', async (event) => {
    await services(event).readiness.check();
    return { status: 'ready' };
  });
}
