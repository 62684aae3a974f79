import type { Config } from '../../config/schema.ts';
import { silentLogger } from '../../core/logger.ts';
import type { GuardedClient, Logger, PluginContext, PortName, Ports } from '../plugin.ts';

/** No outbound calls unless a test hands in a client: a plugin that makes one fails loudly. */
const noOutbound: GuardedClient = {
  request: () => Promise.reject(new Error('this test gave the plugin no outbound client')),
  close() {},
};

export interface PluginContextOptions {
  /** Settings the plugin reads (`dataDir`, `publicUrl`, …); the rest are absent. */
  config?: Partial<Config>;
  /** The guarded client the kernel would hand in; without it every outbound call rejects. */
  outbound?: GuardedClient;
  /** Other ports the plugin asks for with `context.port(name)`; asking for one not given throws. */
  ports?: Partial<Ports>;
  /** Silent unless given. */
  logger?: Logger;
}

/**
 * What the kernel hands a plugin's `register`, for calling it directly in a test:
 * `await plugin.register(pluginContext({ apiKey: 'test' }, { config: { dataDir } }))`.
 */
export function pluginContext<Options>(options: Options, given: PluginContextOptions = {}): PluginContext<Options> {
  return {
    options,
    config: (given.config ?? {}) as Config,
    logger: given.logger ?? silentLogger,
    outbound: given.outbound ?? noOutbound,
    port<K extends PortName>(name: K): Ports[K] {
      const value = given.ports?.[name];
      if (!value) throw new Error(`this test gave the plugin no ${name} port`);
      return value as Ports[K];
    },
  };
}
