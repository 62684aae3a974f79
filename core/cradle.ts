import type { Config } from '../config/schema.ts';
import type { Logger } from './logger.ts';
import type { Ports } from './ports/index.ts';
import type { RenderEngine } from './ports/render-engine.ts';
import { createMemoryBudget } from './imaging/memory-budget.ts';
import { createMetrics } from './metrics/registry.ts';
import type { GuardedClient } from './outbound/guarded-client.ts';
import { service } from './service-declaration.ts';
import { accountService } from './services/accounts.ts';
import { authenticator } from './services/authenticate.ts';
import { conversionService } from './services/conversions.ts';
import { engineRouter } from './services/engine-router.ts';
import { configuredRenderRoutes } from './services/engine-routes.ts';
import { eventService } from './services/events.ts';
import {
  erasureDeletesGenerations,
  purgeGenerationImages,
  purgeImagesJobKind,
} from './services/generation-deletion.ts';
import { generationService, renderJobKind } from './services/generations.ts';
import { renderGeneration } from './services/render-generation.ts';
import { pruneRetention } from './services/retention.ts';
import { strayImagesJobKind, sweepStrayImages } from './services/stray-images.ts';
import { readiness } from './services/readiness.ts';
import { tenantService } from './services/tenants.ts';
import { uploadSweep } from './services/upload-sweep.ts';
import { eraseVisitor } from './services/visitor-erasure.ts';
import { eraseVisitorJobKind, visitorService } from './services/visitors.ts';
import { deliverJobKind, deliverWebhook } from './services/webhook-delivery.ts';
import { disableFailingEndpoints, webhookEndpointService } from './services/webhook-endpoints.ts';
import { widgetService } from './services/widgets.ts';

/** What the kernel registers itself, before any plugin or service. */
export interface KernelValues {
  config: Config;
  logger: Logger;
  /** The one guarded client for every outbound fetch of a customer-chosen URL. */
  outbound: GuardedClient;
  /** The engine of each `render.engines` choice other than `plugins.renderer` (see startPlugins). */
  renderEngines: ReadonlyMap<string, RenderEngine>;
}

/**
 * Every core service, declared once: the kernel registers each as a singleton under its key, the
 * worker runs each job kind on the service that declares it, the scheduler each declared schedule.
 */
export const services = {
  tenants: service(tenantService),
  authenticator: service(authenticator),
  /** The process's budget for image decoding and encoding, shared by every render it runs. */
  imageMemory: service(({ config }: { config: Config }) =>
    createMemoryBudget(config.render.imageMemoryMb * 1024 * 1024),
  ),
  generations: service(generationService),
  /** Each mode's engines in the order a render tries them, with their limits (render.engines). */
  renderRoutes: service(configuredRenderRoutes),
  /** Routes each render down its mode's engines, with fallback, circuits and per-engine caps. */
  engineRouter: service(engineRouter),
  renderGeneration: service(renderGeneration, {
    job: {
      kind: renderJobKind,
      lane: 'jobs',
      counts: { count: (metrics) => ({ total: metrics.renders, duration: metrics.renderDuration }), silent: 'skipped' },
    },
  }),
  /** Deletes the images a render stored but never recorded (it crashed, or its commit failed). */
  sweepStrayImages: service(sweepStrayImages, { job: { kind: strayImagesJobKind, lane: 'jobs' } }),
  /** The job that deletes deleted generations' images (see deleteGenerationsIn). */
  purgeGenerationImages: service(purgeGenerationImages, { job: { kind: purgeImagesJobKind, lane: 'jobs' } }),
  webhookEndpoints: service(webhookEndpointService),
  deliverWebhook: service(deliverWebhook, {
    job: {
      kind: deliverJobKind,
      lane: 'deliveries',
      counts: {
        count: (metrics) => ({ total: metrics.deliveries, duration: metrics.deliveryDuration }),
        silent: 'skipped',
      },
    },
  }),
  events: service(eventService),
  conversions: service(conversionService),
  widgets: service(widgetService),
  /** Dashboard users, their one-time links and sessions. */
  accounts: service(accountService),
  /** What is held about a widget visitor, and its erasure (GDPR Articles 15 and 17). */
  visitors: service(visitorService),
  eraseVisitor: service(eraseVisitor, { job: { kind: eraseVisitorJobKind, lane: 'jobs' } }),
  /** How an erasure deletes the visitor's generations, inside its own transaction. */
  deleteGenerations: service(erasureDeletesGenerations),
  /** This container's Prometheus metrics (`GET /metrics`). */
  metrics: service(createMetrics),
  /** Whether this process can take traffic (`GET /readyz`). */
  readiness: service(readiness),
  /** Photos a crash left behind. */
  sweepUploads: service(uploadSweep, {
    schedule: { name: 'sweep-uploads', intervalMs: (config) => config.uploads.sweepIntervalMs, oncePerCluster: true },
  }),
  /** Wakes this process's idle workers for due work a missed signal left waiting. */
  wakeDueJobs: service(
    ({ queue }: Pick<Ports, 'queue'>) =>
      async () =>
        queue.notify(),
    {
      schedule: {
        name: 'wake-due-jobs',
        intervalMs: (config) => config.webhooks.sweepIntervalMs,
        oncePerCluster: false,
      },
    },
  ),
  /** Rows and renders past their retention. */
  pruneRetention: service(pruneRetention, {
    schedule: {
      name: 'prune-retention',
      intervalMs: (config) => config.retention.sweepIntervalMs,
      oncePerCluster: true,
    },
  }),
  disableFailingEndpoints: service(disableFailingEndpoints, {
    schedule: {
      name: 'disable-failing-endpoints',
      intervalMs: (config) => config.webhooks.sweepIntervalMs,
      oncePerCluster: true,
    },
  }),
};

type Services = typeof services;

/** Everything the container can resolve, by name: the ports (which plugins provide), the kernel's values, the services. */
export type Cradle = Ports & KernelValues & { [Name in keyof Services]: ReturnType<Services[Name]['factory']> };

// Fails to compile, naming the service, when a factory asks for something the container does not hold.
type Unmet = {
  [Name in keyof Services]: Cradle extends Parameters<Services[Name]['factory']>[0] ? never : Name;
}[keyof Services];
type Assert<T extends never> = T;
// biome-ignore lint/correctness/noUnusedVariables: a compile-time check, never used as a type.
type EveryDependencyMet = Assert<Unmet>;
