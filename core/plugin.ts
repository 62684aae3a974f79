import type { AwilixContainer } from 'awilix';
import type * as v from 'valibot';
import type { Config } from '../config/schema.ts';
import type { Cradle } from './cradle.ts';

/** The ports a plugin can provide; config picks one plugin per port. */
export type PortName = 'persistence' | 'clock' | 'ids' | 'cdn' | 'renderer' | 'queue' | 'transport' | 'scheduler';

export interface PluginContext<Options> {
  /** The container to register into. Register the port under its cradle name (see `Cradle`). */
  container: AwilixContainer<Cradle>;
  /** This plugin's options from `pluginOptions[name]`, validated by `configSchema`. */
  options: Options;
  /** The whole application config (data dir, public URL, database URL …). */
  config: Config;
}

export interface Plugin<Options = unknown> {
  /** Unique name; also the key of this plugin's section in `pluginOptions`. */
  name: string;
  provides: PortName[];
  /** Validates `pluginOptions[name]`; missing options are validated as `{}`. */
  configSchema?: v.GenericSchema<unknown, Options>;
  register(context: PluginContext<Options>): void | Promise<void>;
}

/** Identity function that gives a plugin definition its types; every plugin module default-exports one. */
export function definePlugin<Options = Record<string, never>>(plugin: Plugin<Options>): Plugin<Options> {
  return plugin;
}
