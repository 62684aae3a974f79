import type { H3 } from 'h3';
import { services } from '../context.ts';
import { errorResponses, ok, security } from '../openapi/helpers.ts';
import type { PathFragment } from '../openapi/types.ts';

export const healthPaths: PathFragment = {
  '/healthz': {
    get: {
      operationId: 'getHealth',
      summary: 'Liveness: the server answers',
      description:
        'Answers as soon as the server accepts requests; it checks nothing else. For a load balancer or an orchestrator.',
      tags: ['Health'],
      security: security.none,
      responses: { '200': ok('The server is up.', 'Health'), ...errorResponses({ 500: ['internal_error'] }) },
    },
  },
  '/readyz': {
    get: {
      operationId: 'getReadiness',
      summary: 'Readiness: the server and its database answer',
      description: 'Also pings the database: route traffic here only while it answers 200.',
      tags: ['Health'],
      security: security.none,
      responses: {
        '200': ok('Ready for traffic.', 'Readiness'),
        ...errorResponses({ 500: ['internal_error'], 503: ['database_unavailable'] }),
      },
    },
  },
};

/** Liveness answers as soon as the server accepts requests; readiness also needs the database. */
export function healthRoutes(app: H3) {
  app.get('/healthz', () => ({ status: 'ok' }));
  app.get('/readyz', async (event) => {
    await services(event).readiness.check();
    return { status: 'ready' };
  });
}
