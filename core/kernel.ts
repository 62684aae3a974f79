import { asFunction, asValue, createContainer, InjectionMode, type AwilixContainer } from 'awilix';
import type { Config } from '../config/schema.ts';
import { services, type Cradle } from './cradle.ts';
import { createLogger, type Logger } from './logger.ts';
import { startPlugins, type PluginHostOptions, type StartedPlugins } from './plugin-host.ts';
import { portNames } from './ports/index.ts';
import { createGuardedClient, type GuardedClient } from './outbound/guarded-client.ts';
import { configuredRenderRoutes } from './services/engine-routes.ts';

export interface KernelOptions extends PluginHostOptions {
  logger?: Logger;
  /** The outbound client, instead of one built from `config.outbound` (tests trusting their own CA). The kernel closes it. */
  outbound?: GuardedClient;
}

/**
 * Builds the one container of a process: config, logger and the outbound client, one plugin per
 * port as config chooses (see startPlugins), then the services core/cradle.ts declares.
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
  container.register('renderEngines', asValue(plugins.engines));
  try {
    // Checked now, so a bad route stops startup; the routes are resolved again when first used,
    // with the `renderer` port as registered by then (a test's or embedder's engine).
    configuredRenderRoutes({ config, renderer: plugins.ports.renderer, renderEngines: plugins.engines });
  } catch (error) {
    await plugins.dispose();
    outbound.close();
    throw error;
  }
  logger.debug?.('plugins started', { plugins: config.plugins });
  for (const [name, { factory }] of Object.entries(services))
    container.register(name, asFunction(factory as (cradle: Cradle) => unknown).singleton());

  // Awilix disposes its singletons all at once; the plugins go after them, one by one, so a queue
  // stops before the database it writes to closes.
  const disposeServices = container.dispose.bind(container);
  let disposing: Promise<void> | undefined;
  container.dispose = () =>
    (disposing ??= disposeServices()
      .then(plugins.dispose)
      .finally(() => outbound.close()));
  return container;
}
