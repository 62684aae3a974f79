import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { asFunction, asValue, createContainer, InjectionMode, type AwilixContainer } from 'awilix';
import * as v from 'valibot';
import { ConfigError } from '../config/load.ts';
import type { Config } from '../config/schema.ts';
import type { Cradle } from './cradle.ts';
import { createLogger, type Logger } from './logger.ts';
import type { Plugin, PortName } from './plugin.ts';
import { createMemoryBudget } from './imaging/memory-budget.ts';
import { createGuardedClient } from './outbound/guarded-client.ts';
import { authenticator } from './services/authenticate.ts';
import { conversionService } from './services/conversions.ts';
import { eventService } from './services/events.ts';
import { generationService } from './services/generations.ts';
import { renderGeneration } from './services/render-generation.ts';
import { sweepStrayImages } from './services/stray-images.ts';
import { deliverWebhook } from './services/webhook-delivery.ts';
import { webhookEndpointService } from './services/webhook-endpoints.ts';
import { tenantService } from './services/tenants.ts';
import { widgetService } from './services/widgets.ts';

/** Built-in plugins by name, loaded lazily so an unused adapter's dependencies are never imported. */
export type PluginCatalogue = Record<string, () => Promise<{ default: Plugin<any> }>>;

export interface KernelOptions {
  catalogue: PluginCatalogue;
  logger?: Logger;
  /** Where relative plugin paths are resolved from; the working directory by default. */
  cwd?: string;
}

const ports: PortName[] = ['persistence', 'clock', 'ids', 'cdn', 'renderer', 'queue', 'transport', 'scheduler'];

async function loadPlugin(choice: string, port: PortName, options: KernelOptions): Promise<Plugin<any>> {
  const builtin = options.catalogue[choice];
  const specifier = /^(\.{1,2}[\\/]|\/)/.test(choice) ? pathToFileURL(path.resolve(options.cwd ?? process.cwd(), choice)).href : choice;
  let module: { default?: Plugin<any> };
  try {
    module = builtin ? await builtin() : await import(specifier);
  } catch (error) {
    throw new ConfigError(`plugins.${port}: cannot load plugin '${choice}': ${(error as Error).message}`);
  }
  const plugin = module.default;
  if (!plugin || typeof plugin.register !== 'function' || !Array.isArray(plugin.provides)) {
    throw new ConfigError(`plugins.${port}: '${choice}' does not default-export a plugin made with definePlugin().`);
  }
  if (!plugin.provides.includes(port)) {
    throw new ConfigError(`plugins.${port}: plugin '${plugin.name}' provides ${plugin.provides.join(', ') || 'nothing'}, not ${port}.`);
  }
  return plugin;
}

function pluginOptions(plugin: Plugin<any>, config: Config) {
  const raw = config.pluginOptions[plugin.name] ?? {};
  if (!plugin.configSchema) return raw;
  const result = v.safeParse(plugin.configSchema, raw);
  if (result.success) return result.output;
  const issues = result.issues.map((issue) => `  pluginOptions.${plugin.name}.${v.getDotPath(issue) ?? ''}: ${issue.message}`);
  throw new ConfigError(`Invalid configuration:\n${issues.join('\n')}`);
}

/**
 * Builds the one container of a process: config and logger, one plugin per port as config
 * chooses, then the core services that depend only on ports.
 */
export async function createKernel(config: Config, options: KernelOptions): Promise<AwilixContainer<Cradle>> {
  const container = createContainer<Cradle>({ injectionMode: InjectionMode.PROXY, strict: true });
  container.register({ config: asValue(config), logger: asValue(options.logger ?? createLogger()) });

  const registered = new Set<Plugin<any>>();
  for (const port of ports) {
    const plugin = await loadPlugin(config.plugins[port], port, options);
    if (!registered.has(plugin)) {
      const settings = pluginOptions(plugin, config);
      try {
        await plugin.register({ container, options: settings, config });
      } catch (error) {
        throw new ConfigError(`plugins.${port}: plugin '${plugin.name}' could not start: ${(error as Error).message}`);
      }
      registered.add(plugin);
    }
    if (!container.hasRegistration(port)) {
      throw new ConfigError(`plugins.${port}: plugin '${plugin.name}' says it provides ${port} but registered nothing under that name.`);
    }
  }

  container.register({
    tenants: asFunction(tenantService).singleton(),
    authenticator: asFunction(authenticator).singleton(),
    outbound: asFunction(({ config }: Cradle) => createGuardedClient({ allow: config.outbound.allow }))
      .singleton()
      .disposer((client) => client.close()),
    imageMemory: asValue(createMemoryBudget(config.render.imageMemoryMb * 1024 * 1024)),
    generations: asFunction(generationService).singleton(),
    renderGeneration: asFunction(renderGeneration).singleton(),
    sweepStrayImages: asFunction(sweepStrayImages).singleton(),
    webhookEndpoints: asFunction(webhookEndpointService).singleton(),
    deliverWebhook: asFunction(deliverWebhook).singleton(),
    events: asFunction(eventService).singleton(),
    conversions: asFunction(conversionService).singleton(),
    widgets: asFunction(widgetService).singleton(),
  });
  return container;
}
