import ipaddr from 'ipaddr.js';

/**
 * The outbound allowlist (`outbound.allow`, `VISUALIZER_OUTBOUND_ALLOW`): what the private-address
 * guard lets through. An entry is a hostname, an IP address or a CIDR, each optionally with `:port`
 * (IPv6 then in brackets: `[::1]:8443`, `[fd00::/8]:443`); without a port it covers every port.
 */

export type Address = ipaddr.IPv4 | ipaddr.IPv6;

export interface AllowEntry {
  /** An exact hostname (lowercase, no trailing dot): every address it resolves to is allowed. */
  host?: string;
  /** An address range (a single IP is a /32 or /128). */
  range?: [Address, number];
  /** The only port the entry covers; undefined covers every port. */
  port?: number;
}

export type AllowList = AllowEntry[];

const HOSTNAME = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/;

class EntryProblem extends Error {}

function parsePort(text: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 1 && port <= 65535)) throw new EntryProblem(`has an invalid port "${text}" (1–65535)`);
  return port;
}

function parseEntry(raw: string): AllowEntry {
  const text = raw.trim().toLowerCase();
  let target = text;
  let port: number | undefined;
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    const rest = close < 0 ? '' : text.slice(close + 1);
    target = text.slice(1, close < 0 ? undefined : close);
    if (close < 0 || !ipaddr.IPv6.isValid(target.split('/')[0]!) || (rest !== '' && !rest.startsWith(':'))) {
      throw new EntryProblem('must be [IPv6 address or CIDR] optionally followed by :port');
    }
    if (rest !== '') port = parsePort(rest.slice(1));
  } else if (text.split(':').length === 2) {
    // One colon is host:port; more is a bare IPv6 address or range, which a port cannot follow unbracketed.
    [target, port] = [text.slice(0, text.indexOf(':')), parsePort(text.slice(text.indexOf(':') + 1))];
  }
  if (target.endsWith('.')) target = target.slice(0, -1);
  if (target.includes('/')) {
    if (!ipaddr.isValidCIDR(target)) throw new EntryProblem('is not a valid CIDR (such as 10.0.0.0/8 or fd00::/8)');
    return { range: ipaddr.parseCIDR(target), port };
  }
  if (ipaddr.IPv4.isValidFourPartDecimal(target) || ipaddr.IPv6.isValid(target)) {
    const address = ipaddr.parse(target);
    return { range: [address, address.kind() === 'ipv4' ? 32 : 128], port };
  }
  if (!HOSTNAME.test(target))
    throw new EntryProblem('must be a hostname, an IP address or a CIDR, optionally with :port');
  return { host: target, port };
}

/** What is wrong with an entry, for configuration messages; null when it is valid. */
export function allowEntryProblem(entry: string): string | null {
  try {
    parseEntry(entry);
    return null;
  } catch (error) {
    if (error instanceof EntryProblem) return error.message;
    throw error;
  }
}

/** Throws on a malformed entry: a typo should stop startup, not silently allow nothing (or everything). */
export function parseAllowList(entries: string[]): AllowList {
  return entries
    .filter((entry) => entry.trim() !== '')
    .map((entry) => {
      try {
        return parseEntry(entry);
      } catch (error) {
        if (error instanceof EntryProblem) throw new Error(`Outbound allowlist entry "${entry}" ${error.message}`);
        throw error;
      }
    });
}
