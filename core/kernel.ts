import { asFunction, asValue, createContainer, InjectionMode, type AwilixContainer } from 'awilix';
import type { Config } from '../config/schema.ts';
import type { Cradle } from './cradle.ts';
import { createLogger, type Logger } from './logger.ts';
import { startPlugins, type PluginHostOptions, type StartedPlugins } from './plugin-host.ts';
import { portNames } from './ports/index.ts';
import { createMemoryBudget } from './imaging/memory-budget.ts';
import { createMetrics } from './metrics/registry.ts';
import { createGuardedClient, type GuardedClient } from './outbound/guarded-client.ts';
import { accountService } from './services/accounts.ts';
import { authenticator } from './services/authenticate.ts';
import { conversionService } from './services/conversions.ts';
import { eventService } from './services/events.ts';
import { deleteGenerationsIn, purgeGenerationImages } from './services/generation-deletion.ts';
import { generationService } from './services/generations.ts';
import { renderGeneration } from './services/render-generation.ts';
import { engineRouter } from './services/engine-router.ts';
import { renderRoutes } from './services/engine-routes.ts';
import type { RenderEngine } from './ports/render-engine.ts';
import { sweepStrayImages } from './services/stray-images.ts';
import { deliverWebhook } from './services/webhook-delivery.ts';
import { webhookEndpointService } from './services/webhook-endpoints.ts';
import { tenantService } from './services/tenants.ts';
import { readiness } from './services/readiness.ts';
import { eraseVisitor } from './services/visitor-erasure.ts';
import { visitorService, type DeleteGenerations } from './services/visitors.ts';
import { widgetService } from './services/widgets.ts';

export interface KernelOptions extends PluginHostOptions {
  logger?: Logger;
  /** The outbound client, instead of one built from `config.outbound` (tests trusting their own CA). The kernel closes it. */
  outbound?: GuardedClient;
}

/**
 * Builds the one container of a process: config, logger and the outbound client, one plugin per
 * port as config chooses (see startPlugins), then the core services that depend only on ports.
 * Disposing the container disposes the services, then the plugins, then the outbound client.
 */
export async function createKernel(config: Config, options: KernelOptions): Promise<AwilixContainer<Cradle>> {
  const container = createContainer<Cradle>({ injectionMode: InjectionMode.PROXY, strict: true });
  const logger = options.logger ?? createLogger({ level: config.logLevel });
  const outbound = options.outbound ?? createGuardedClient({ allow: config.outbound.allow });
  container.register({ config: asValue(config), logger: asValue(logger), outbound: asValue(outbound) });
  let plugins: StartedPlugins;
  try {
    plugins = await startPlugins(config, { logger, outbound }, options);
  } catch (error) {
    outbound.close();
    throw error;
  }

  for (const port of portNames) container.register(port, asValue(plugins.ports[port]));
  const engineOf = (renderer: RenderEngine) => (choice: string) => (choice === config.plugins.renderer ? renderer : plugins.engines.get(choice)!);
  try {
    // Checked now, so a bad route stops startup; the routes are resolved again when first used,
    // with the `renderer` port as registered by then (a test's or embedder's engine).
    renderRoutes(config, engineOf(plugins.ports.renderer));
  } catch (error) {
    await plugins.dispose();
    outbound.close();
    throw error;
  }
  logger.debug?.('plugins started', { plugins: config.plugins });
  container.register({
    tenants: asFunction(tenantService).singleton(),
    authenticator: asFunction(authenticator).singleton(),
    imageMemory: asValue(createMemoryBudget(config.render.imageMemoryMb * 1024 * 1024)),
    generations: asFunction(generationService).singleton(),
    renderRoutes: asFunction(({ renderer }: Cradle) => renderRoutes(config, engineOf(renderer))).singleton(),
    engineRouter: asFunction(engineRouter).singleton(),
    renderGeneration: asFunction(renderGeneration).singleton(),
    sweepStrayImages: asFunction(sweepStrayImages).singleton(),
    purgeGenerationImages: asFunction(purgeGenerationImages).singleton(),
    webhookEndpoints: asFunction(webhookEndpointService).singleton(),
    deliverWebhook: asFunction(deliverWebhook).singleton(),
    events: asFunction(eventService).singleton(),
    conversions: asFunction(conversionService).singleton(),
    widgets: asFunction(widgetService).singleton(),
    accounts: asFunction(accountService).singleton(),
    visitors: asFunction(visitorService).singleton(),
    eraseVisitor: asFunction(eraseVisitor).singleton(),
    // An erasure deletes the visitor's generations as DELETE /v1/generations/{id} does, as `erased`.
    deleteGenerations: asFunction((cradle: Cradle): DeleteGenerations => async (tx, organizationId, generationIds) => void (await deleteGenerationsIn(tx, cradle, { organizationId, generationIds, reason: 'erased' }))).singleton(),
    metrics: asFunction(createMetrics).singleton(),
    readiness: asFunction(readiness).singleton(),
  });

  // Awilix disposes its singletons all at once; the plugins go after them, one by one, so a queue
  // stops before the database it writes to closes.
  const disposeServices = container.dispose.bind(container);
  let disposing: Promise<void> | undefined;
  container.dispose = () => (disposing ??= disposeServices().then(plugins.dispose).finally(() => outbound.close()));
  return container;
}
