import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as v from 'valibot';
import { ConfigError } from '../config/load.ts';
import { builtinPluginFeeds, fillSharedSettings } from '../config/plugin-settings.ts';
import { builtinPluginName } from '../config/port-names.ts';
import type { Config } from '../config/schema.ts';
import type { Logger } from './logger.ts';
import type { GuardedClient } from './outbound/guarded-client.ts';
import type { AnyPlugin, Provided } from './plugin.ts';
import { portNames, type PortName, type Ports } from './ports/index.ts';
import type { RenderEngine } from './ports/render-engine.ts';

/** Built-in plugins by name (`<role>-<choice>`), loaded lazily so an unused adapter's dependencies are never imported. */
export type PluginCatalogue = Record<string, () => Promise<{ default: AnyPlugin }>>;

export interface PluginHostOptions {
  catalogue: PluginCatalogue;
  /** Where relative plugin paths are resolved from; the working directory by default. */
  cwd?: string;
  /** Implementations used instead of the configured plugin for their port (tests, embedding). */
  ports?: Partial<Ports>;
}

/** Every port's implementation, and how to release them. */
export interface StartedPlugins {
  ports: Ports;
  /**
   * The engine of every choice `render.engines` routes other than `plugins.renderer`, whose engine
   * is the `renderer` port (see core/services/engine-routes.ts).
   */
  engines: Map<string, RenderEngine>;
  /** Disposes each plugin once, the last registered first; one that fails is logged and the rest still go. */
  dispose(): Promise<void>;
}

/** The choices config has among the catalogue's plugins for a port: `mock`, `gemini` … for the renderer. */
function builtinChoices(port: PortName, options: PluginHostOptions): string[] {
  const prefix = builtinPluginName(port, '');
  return Object.keys(options.catalogue)
    .filter((name) => name.startsWith(prefix))
    .map((name) => name.slice(prefix.length));
}

async function loadPlugin(
  choice: string,
  port: PortName,
  options: PluginHostOptions,
  field = `plugins.${port}`,
): Promise<AnyPlugin> {
  // A built-in is chosen within its port: `postgres` for limits is `limits-postgres`, for persistence `store-postgres`.
  const builtin = options.catalogue[builtinPluginName(port, choice)];
  const isPath = /^(\.{1,2}[\\/]|\/)/.test(choice);
  const specifier = isPath ? pathToFileURL(path.resolve(options.cwd ?? process.cwd(), choice)).href : choice;
  let module: { default?: AnyPlugin };
  try {
    module = builtin ? await builtin() : await import(specifier);
  } catch (error) {
    // A bare word may have meant a built-in: say which ones this port has.
    const builtins =
      isPath || builtin
        ? ''
        : ` (no built-in ${port} plugin is called that; the built-ins are ${builtinChoices(port, options).join(', ')})`;
    throw new ConfigError(`${field}: cannot load plugin '${choice}'${builtins}: ${(error as Error).message}`);
  }
  const plugin = module.default;
  if (!plugin || typeof plugin.register !== 'function' || !Array.isArray(plugin.provides)) {
    throw new ConfigError(`${field}: '${choice}' does not default-export a plugin made with definePlugin().`);
  }
  if (!plugin.provides.includes(port)) {
    throw new ConfigError(
      `${field}: plugin '${plugin.name}' provides ${plugin.provides.join(', ') || 'nothing'}, not ${port}.`,
    );
  }
  return plugin;
}

/**
 * A plugin's options as its `register` receives them: its section of `pluginOptions`, the shared
 * settings it takes filled in (a built-in's from config/plugin-settings.ts, a third party's from its
 * `sharedSettings`), validated by its `configSchema`.
 */
export function validatedOptions(plugin: AnyPlugin, config: Config): unknown {
  const feeds =
    (Object.hasOwn(builtinPluginFeeds, plugin.name) ? builtinPluginFeeds[plugin.name] : plugin.sharedSettings) ?? {};
  const raw = fillSharedSettings(plugin.name, config.pluginOptions[plugin.name], feeds, config) ?? {};
  if (!plugin.configSchema) return raw;
  const result = v.safeParse(plugin.configSchema, raw);
  if (result.success) return result.output;
  const issues = result.issues.map(
    (issue) => `  pluginOptions.${plugin.name}.${v.getDotPath(issue) ?? ''}: ${issue.message}`,
  );
  throw new ConfigError(`Invalid configuration:\n${issues.join('\n')}`);
}

/**
 * Loads the plugin config chooses for each port, and every render engine `render.engines` routes,
 * and registers each plugin once, in `portNames` order,
 * so a plugin can use the ports before its own. A plugin must return every port it provides.
 * When one cannot start, those already started are disposed before the error is thrown.
 */
export async function startPlugins(
  config: Config,
  shared: { logger: Logger; outbound: GuardedClient },
  options: PluginHostOptions,
): Promise<StartedPlugins> {
  const registered: Partial<Ports> = { ...options.ports };
  const started = new Map<AnyPlugin, Provided>();
  const disposers: Array<{ name: string; dispose: () => void | Promise<void> }> = [];

  let disposing: Promise<void> | undefined;
  const dispose = () =>
    (disposing ??= (async () => {
      for (const { name, dispose } of disposers.reverse()) {
        try {
          await dispose();
        } catch (error) {
          shared.logger.error('a plugin failed to dispose', {
            plugin: name,
            error: error instanceof Error ? error.stack : String(error),
          });
        }
      }
    })());

  async function start(plugin: AnyPlugin, port: PortName): Promise<Provided> {
    const available = <K extends PortName>(name: K): Ports[K] => {
      const value = registered[name];
      if (value) return value as Ports[K];
      throw new ConfigError(
        `plugins.${port}: plugin '${plugin.name}' asked for the ${name} port, which is not registered yet; a plugin can use the ports before its own in the order ${portNames.join(', ')}.`,
      );
    };
    let provided: Provided;
    try {
      provided =
        (await plugin.register({ ...shared, options: validatedOptions(plugin, config), port: available })) ?? {};
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      throw new ConfigError(`plugins.${port}: plugin '${plugin.name}' could not start: ${(error as Error).message}`);
    }
    if (typeof provided.dispose === 'function')
      disposers.push({ name: plugin.name, dispose: provided.dispose.bind(provided) });
    const missing = plugin.provides.filter((name) => !provided[name]);
    if (missing.length) {
      throw new ConfigError(
        `plugins.${port}: plugin '${plugin.name}' says it provides ${missing.join(', ')} but its register() returned no ${missing.join(' or ')}.`,
      );
    }
    return provided;
  }

  const engines = new Map<string, RenderEngine>();
  async function provide(choice: string, port: PortName, field?: string) {
    const plugin = await loadPlugin(choice, port, options, field);
    let provided = started.get(plugin);
    if (!provided) started.set(plugin, (provided = await start(plugin, port)));
    return provided[port];
  }
  try {
    for (const port of portNames) {
      if (!registered[port]) registered[port] = (await provide(config.plugins[port], port)) as never;
      if (port !== 'renderer') continue;
      // Every other engine routed, each plugin started once with its own options, beside the port's.
      for (const [mode, choices] of Object.entries(config.render.engines)) {
        for (const choice of choices) {
          if (choice === config.plugins.renderer || engines.has(choice)) continue;
          engines.set(choice, (await provide(choice, 'renderer', `render.engines.${mode}`)) as RenderEngine);
        }
      }
    }
  } catch (error) {
    await dispose();
    throw error;
  }
  return { ports: registered as Ports, engines, dispose };
}
