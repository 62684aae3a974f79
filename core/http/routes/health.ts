import type { H3 } from 'h3';
import { ApiError } from '../../domain/errors.ts';
import { services } from '../context.ts';

/** Liveness answers as soon as the server accepts requests; readiness also needs the database. */
export function healthRoutes(app: H3) {
  app.get('/healthz', () => ({ status: 'ok' }));
  app.get('/readyz', async (event) => {
    try {
      await services(event).persistence.ping();
    } catch {
      throw new ApiError('api_error', 'database_unavailable', 'The database is not reachable.');
    }
    return { status: 'ready' };
  });
}
