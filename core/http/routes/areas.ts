import type { H3 } from 'h3';
import type { Config } from '../../../config/schema.ts';
import type { PathFragment } from '../openapi/types.ts';
import type { RouteLimits } from '../rate-limit.ts';
import { apiKeyPaths, apiKeyRoutes } from './api-keys.ts';
import { cdnPaths, cdnRoutes } from './cdn.ts';
import { conversionPaths, conversionRoutes } from './conversions.ts';
import { creditPaths, creditRoutes } from './credits.ts';
import { eventStreamPaths, eventStreamRoutes } from './event-stream.ts';
import { eventPaths, eventRoutes } from './events.ts';
import { generationPaths, generationRoutes } from './generations.ts';
import { healthPaths, healthRoutes } from './health.ts';
import { mcpPaths, mcpRoutes } from './mcp.ts';
import { metricsPaths, metricsRoutes } from './metrics.ts';
import { organizationPaths, organizationRoutes } from './organization.ts';
import { referencePagePaths, referencePageRoutes } from './reference-page.ts';
import { sessionPaths, sessionRoutes } from './session.ts';
import { storePaths, storeRoutes } from './stores.ts';
import { userPaths, userRoutes } from './users.ts';
import { visitorPaths, visitorRoutes } from './visitors.ts';
import { webhookEndpointPaths, webhookEndpointRoutes } from './webhook-endpoints.ts';
import { widgetPaths, widgetRoutes } from './widgets.ts';

/** One route file: the routes it registers and their document, exported side by side. */
export interface ApiArea {
  paths: PathFragment;
  routes(app: H3, limits: RouteLimits, config: Config): void;
}

/**
 * Every area of the API, listed once: the app registers each one's routes and the OpenAPI
 * document merges each one's paths, so an area cannot be served undocumented by being left off
 * one list. In the document's order (paths appear in it as listed here).
 */
export const apiAreas: readonly ApiArea[] = [
  { paths: generationPaths, routes: generationRoutes },
  { paths: storePaths, routes: storeRoutes },
  { paths: creditPaths, routes: creditRoutes },
  { paths: organizationPaths, routes: organizationRoutes },
  { paths: webhookEndpointPaths, routes: webhookEndpointRoutes },
  { paths: eventPaths, routes: eventRoutes },
  { paths: eventStreamPaths, routes: (app, limits) => eventStreamRoutes(app, limits) },
  { paths: conversionPaths, routes: conversionRoutes },
  { paths: widgetPaths, routes: widgetRoutes },
  { paths: visitorPaths, routes: visitorRoutes },
  { paths: sessionPaths, routes: sessionRoutes },
  { paths: userPaths, routes: userRoutes },
  { paths: apiKeyPaths, routes: apiKeyRoutes },
  { paths: mcpPaths, routes: (app, limits) => mcpRoutes(app, limits) },
  { paths: healthPaths, routes: healthRoutes },
  // Documented even where `metrics.enabled` is false (the route then answers 404): the document is one for every deployment.
  { paths: metricsPaths, routes: (app, _limits, config) => metricsRoutes(app, config) },
  { paths: cdnPaths, routes: cdnRoutes },
  { paths: referencePagePaths, routes: referencePageRoutes },
];
