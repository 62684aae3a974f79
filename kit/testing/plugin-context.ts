import { silentLogger } from '../../core/logger.ts';
import type { GuardedClient, Logger, PluginContext, PortName, Ports } from '../plugin.ts';

/** No outbound calls unless a test hands in a client: a plugin that makes one fails loudly. */
const noOutbound: GuardedClient = {
  request: () => Promise.reject(new Error('this test gave the plugin no outbound client')),
  close() {},
};

export interface PluginContextOptions {
  /** The guarded client the kernel would hand in; without it every outbound call rejects. */
  outbound?: GuardedClient;
  /** Other ports the plugin asks for with `context.port(name)`; asking for one not given throws. */
  ports?: Partial<Ports>;
  /** Silent unless given. */
  logger?: Logger;
}

/**
 * What the kernel hands a plugin's `register`, for calling it directly in a test:
 * `await plugin.register(pluginContext({ apiKey: 'test', dir }))`. The options are passed as
 * given: the shared settings the kernel would fill in (a data dir, the public URL) are the test's to give.
 */
export function pluginContext<Options>(options: Options, given: PluginContextOptions = {}): PluginContext<Options> {
  return {
    options,
    logger: given.logger ?? silentLogger,
    outbound: given.outbound ?? noOutbound,
    port<K extends PortName>(name: K): Ports[K] {
      const value = given.ports?.[name];
      if (!value) throw new Error(`this test gave the plugin no ${name} port`);
      return value as Ports[K];
    },
  };
}
