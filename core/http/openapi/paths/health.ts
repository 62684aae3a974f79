import { errorResponses, ok, security } from '../helpers.ts';
import type { PathFragment } from '../types.ts';

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
  '/metrics': {
    get: {
      operationId: 'getMetrics',
      summary: 'Prometheus metrics of this process',
      description:
        "For the operator's Prometheus, not the public: HTTP requests by route and status, job queue depth and lag, renders and webhook deliveries by outcome, database pool usage, and the process's CPU, memory and event loop (see docs/operations.md, `Metrics and logs`). With `metrics.token` configured, send it as `Authorization: Bearer <token>`; without one, keep this path off the public load balancer. Absent (404) when `metrics.enabled` is false.",
      tags: ['Health'],
      security: security.none,
      responses: {
        '200': {
          description: 'The Prometheus text format (version 0.0.4).',
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
        ...errorResponses({ 401: ['invalid_metrics_token'], 404: ['route_not_found'], 500: ['internal_error'] }),
      },
    },
  },
};
