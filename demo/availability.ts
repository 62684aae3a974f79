import ipaddr from 'ipaddr.js';
import type { Config } from '../core/http/app-module-api.ts';

/**
 * Whether the demo shop is served, and why. It tops up its organization's credits and keeps an API
 * key in demo.json, so on a server others can reach it would hand out free renders: unless asked
 * for (`demo.enabled`, `VISUALIZER_DEMO`), it is on only where nobody else can reach it.
 */
export interface DemoAvailability {
  enabled: boolean;
  reason: string;
}

type DemoConfig = Pick<Config, 'demo' | 'host' | 'publicUrl' | 'trustProxy'>;

/** `localhost` or a loopback address (127.0.0.0/8, ::1, ::ffff:127.x): reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (bare === 'localhost') return true;
  return ipaddr.isValid(bare) && ipaddr.process(bare).range() === 'loopback';
}

export function demoAvailability(
  config: DemoConfig,
  env: Record<string, string | undefined> = process.env,
): DemoAvailability {
  const off = (reason: string) => ({ enabled: false, reason });
  if (config.demo.enabled !== undefined)
    return { enabled: config.demo.enabled, reason: `demo.enabled is ${config.demo.enabled}` };
  // A production server may listen on loopback behind a reverse proxy on the same machine.
  if (env.NODE_ENV === 'production') return off('NODE_ENV is production');
  if (!isLoopbackHost(config.host))
    return off(`HOST ${config.host} is not loopback alone (other machines can reach it)`);
  const publicHost = new URL(config.publicUrl).hostname;
  if (!isLoopbackHost(publicHost)) return off(`the public URL ${config.publicUrl} is not on this machine`);
  if (config.trustProxy) return off('trustProxy is set (a proxy forwards other machines to it)');
  return { enabled: true, reason: `this server listens on ${config.host}, loopback only` };
}

/** The startup banner's line: the demo's address and why it is on, or why it is off and how to turn it on. */
export function demoBannerLine(config: DemoConfig, env: Record<string, string | undefined> = process.env): string {
  const { enabled, reason } = demoAvailability(config, env);
  // The demo's widget allows the public URL's origin, so that is the address to open it at.
  if (enabled) return `Demo shop: ${config.publicUrl}/demo (served because ${reason})`;
  if (config.demo.enabled === false) return `Demo shop: off, because ${reason}.`;
  return `Demo shop: off, because ${reason}. To serve it anyway: VISUALIZER_DEMO=true, or "demo": { "enabled": true } in the config file.`;
}
