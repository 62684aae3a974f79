import type { Config } from '../../config/schema.ts';
import { silentLogger } from '../../core/logger.ts';
import type { GuardedClient, PluginContext, PortName, Ports } from '../../kit/plugin.ts';

/** No outbound calls unless a test hands in a client. */
const noOutbound: GuardedClient = {
  request: () => Promise.reject(new Error('this test gave the plugin no outbound client')),
  close() {},
};

/** What the kernel hands a plugin's `register`, for calling one directly: defaults, and the ports a test gives. */
export function pluginContext<Options>(
  options: Options,
  given: { config?: Partial<Config>; outbound?: GuardedClient; ports?: Partial<Ports> } = {},
): PluginContext<Options> {
  return {
    options,
    config: (given.config ?? {}) as Config,
    logger: silentLogger,
    outbound: given.outbound ?? noOutbound,
    port<K extends PortName>(name: K): Ports[K] {
      const value = given.ports?.[name];
      if (!value) throw new Error(`this test gave the plugin no ${name} port`);
      return value as Ports[K];
    },
  };
}
