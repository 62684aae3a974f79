/**
 * Every port, in the order the kernel registers them: a plugin can use the ports before its own
 * (the queue needs persistence, clock and ids). Config, the kernel and the container derive from it;
 * core/ports/index.ts checks that each name has its interface.
 */
export const portNames = [
  'persistence',
  'clock',
  'ids',
  'limits',
  'cdn',
  'renderer',
  'credentials',
  'queue',
  'transport',
  'scheduler',
] as const;

export type PortName = (typeof portNames)[number];

/**
 * The role each port's built-in plugins are named by: a built-in plugin's folder, catalogue key
 * and `plugin.name` are all `<role>-<choice>` (`store-sqlite`, `queue-db`), while config chooses it
 * by `<choice>` within its port (`plugins.persistence: 'sqlite'`, `VISUALIZER_QUEUE=db`).
 */
export const pluginRoles: Record<PortName, string> = {
  persistence: 'store',
  clock: 'clock',
  ids: 'ids',
  limits: 'limits',
  cdn: 'cdn',
  renderer: 'renderer',
  credentials: 'credentials',
  queue: 'queue',
  transport: 'transport',
  scheduler: 'scheduler',
};

/** The name of the built-in plugin a config choice names for a port: `builtinPluginName('limits', 'postgres')` is `limits-postgres`. */
export const builtinPluginName = (port: PortName, choice: string) => `${pluginRoles[port]}-${choice}`;
