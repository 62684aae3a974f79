import type * as v from 'valibot';
import type { SharedSettingFeeds } from '../config/plugin-settings.ts';
import type { Logger } from './logger.ts';
import type { GuardedClient } from './outbound/guarded-client.ts';
import type { PortName, Ports } from './ports/index.ts';

export { portNames, type PortName, type Ports } from './ports/index.ts';

/** What `register` is given. */
export interface PluginContext<Options> {
  /**
   * This plugin's options from `pluginOptions[name]`, with the shared settings it takes filled in
   * (config/plugin-settings.ts), validated by `configSchema`. A plugin sees nothing else of the config.
   */
  options: Options;
  logger: Logger;
  /** The process's one client for customer-chosen URLs: SSRF guard, allowlist, no redirects. */
  outbound: GuardedClient;
  /**
   * A port registered before this plugin's, in `portNames` order (the queue may ask for
   * persistence, clock and ids). Asking for a later one throws.
   */
  port<K extends PortName>(name: K): Ports[K];
}

/**
 * What `register` returns: an implementation of each port the plugin provides, and how to release
 * them. (`Provided` alone, for any plugin, requires no particular port.)
 */
export type Provided<P extends PortName = PortName> = (PortName extends P
  ? Partial<Ports>
  : Pick<Ports, P> & Partial<Ports>) & {
  /** Called once when the process shuts down, after the plugins registered later have been disposed. */
  dispose?(): void | Promise<void>;
};

export interface Plugin<Options = unknown, P extends PortName = PortName> {
  /** Unique name; also the key of this plugin's section in `pluginOptions`. */
  name: string;
  provides: readonly P[];
  /** Validates `pluginOptions[name]`; missing options are validated as `{}`. */
  configSchema?: v.GenericSchema<unknown, Options>;
  /**
   * Options filled from the application's shared settings (data dir, public URL, database URL)
   * before validation, for a third-party plugin; a built-in's are in config/plugin-settings.ts.
   */
  sharedSettings?: SharedSettingFeeds;
  register(context: PluginContext<Options>): Provided<P> | Promise<Provided<P>>;
}

/** Any plugin, whatever it provides: what catalogues and the kernel hold. */
export interface AnyPlugin {
  name: string;
  provides: readonly PortName[];
  configSchema?: v.GenericSchema<unknown, any>;
  sharedSettings?: SharedSettingFeeds;
  register(context: PluginContext<any>): Provided | Promise<Provided>;
}

/**
 * Gives a plugin definition its types, and checks that `register` returns every port listed in
 * `provides`; every plugin module default-exports one.
 */
export function definePlugin<Options = Record<string, never>, P extends PortName = never>(
  plugin: Plugin<Options, P>,
): Plugin<Options, P> {
  return plugin;
}
