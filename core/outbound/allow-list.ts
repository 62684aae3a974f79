import ipaddr from 'ipaddr.js';
import type { Address, AllowList } from '../../config/allow-list.ts';

// Config parses the entries (config/allow-list.ts); the guard matches hosts and addresses against them.
export { parseAllowList, type AllowList } from '../../config/allow-list.ts';

/** Whether a hostname entry covers this host (normalized: lowercase, no brackets or trailing dot) on this port. */
export function allowsHost(allow: AllowList, host: string, port: number): boolean {
  return allow.some((entry) => entry.host === host && (entry.port === undefined || entry.port === port));
}

/** Whether an address entry or range covers this address on this port. */
export function allowsAddress(allow: AllowList, address: string, port: number): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return false;
  const parsed = ipaddr.parse(bare);
  // Both the literal form and the IPv4 behind an IPv4-mapped address, so "127.0.0.0/8" also admits ::ffff:127.0.0.1.
  const forms: Address[] = [parsed];
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    forms.push((parsed as ipaddr.IPv6).toIPv4Address());
  return allow.some(({ range, port: only }) => {
    if (range === undefined || (only !== undefined && only !== port)) return false;
    const [network, bits] = range;
    return forms.some((form) => form.kind() === network.kind() && form.match(network, bits));
  });
}
