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
