import type { Config } from '../config/schema.ts';
import type { Logger } from './logger.ts';
import type { Ports } from './ports/index.ts';
import type { MemoryBudget } from './imaging/memory-budget.ts';
import type { Metrics } from './metrics/registry.ts';
import type { GuardedClient } from './outbound/guarded-client.ts';
import type { AccountService } from './services/accounts.ts';
import type { Authenticator } from './services/authenticate.ts';
import type { ConversionService } from './services/conversions.ts';
import type { EventService } from './services/events.ts';
import type { GenerationService } from './services/generations.ts';
import type { PurgeGenerationImages } from './services/generation-deletion.ts';
import type { RenderGeneration } from './services/render-generation.ts';
import type { EngineRouter } from './services/engine-router.ts';
import type { RenderRoutes } from './services/engine-routes.ts';
import type { SweepStrayImages } from './services/stray-images.ts';
import type { DeliverWebhook } from './services/webhook-delivery.ts';
import type { WebhookEndpointService } from './services/webhook-endpoints.ts';
import type { TenantService } from './services/tenants.ts';
import type { Readiness } from './services/readiness.ts';
import type { EraseVisitor } from './services/visitor-erasure.ts';
import type { DeleteGenerations, VisitorService } from './services/visitors.ts';
import type { WidgetService } from './services/widgets.ts';

/** Everything the container can resolve, by name: the ports (which plugins provide), then the core's own. */
export interface Cradle extends Ports {
  config: Config;
  logger: Logger;
  tenants: TenantService;
  authenticator: Authenticator;
  /** The one guarded client for every outbound fetch of a customer-chosen URL. */
  outbound: GuardedClient;
  /** The process's budget for image decoding and encoding, shared by every render it runs. */
  imageMemory: MemoryBudget;
  generations: GenerationService;
  /** Each mode's engines in the order a render tries them, with their limits (render.engines). */
  renderRoutes: RenderRoutes;
  /** Routes each render down its mode's engines, with fallback, circuits and per-engine caps. */
  engineRouter: EngineRouter;
  renderGeneration: RenderGeneration;
  sweepStrayImages: SweepStrayImages;
  /** The job that deletes deleted generations' images (see deleteGenerationsIn). */
  purgeGenerationImages: PurgeGenerationImages;
  webhookEndpoints: WebhookEndpointService;
  deliverWebhook: DeliverWebhook;
  events: EventService;
  conversions: ConversionService;
  widgets: WidgetService;
  /** What is held about a widget visitor, and its erasure (GDPR Articles 15 and 17). */
  visitors: VisitorService;
  eraseVisitor: EraseVisitor;
  /** How an erasure deletes the visitor's generations, inside its own transaction. */
  deleteGenerations: DeleteGenerations;
  /** Dashboard users, their one-time links and sessions. */
  accounts: AccountService;
  /** This container's Prometheus metrics (`GET /metrics`). */
  metrics: Metrics;
  /** Whether the process can take traffic (`GET /readyz`). */
  readiness: Readiness;
}
