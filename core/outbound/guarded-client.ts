import dns from 'node:dns';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import tls from 'node:tls';
import ipaddr from 'ipaddr.js';
import { allowsAddress, allowsHost, parseAllowList } from './allow-list.ts';
import { Cancellation } from './cancellation.ts';

/**
 * The one HTTPS client for URLs chosen by customers (photos, product images, webhooks).
 *
 * SSRF defence: https only; every hop's host is resolved once, every resolved address is checked
 * against private/loopback/link-local/metadata ranges (unless allowlisted), and the socket connects
 * to exactly those checked addresses (a custom `lookup` replays them), so a DNS answer cannot change
 * between check and connect (DNS rebinding).
 */

export type OutboundErrorCode =
  | 'invalid_url'
  | 'not_https'
  | 'blocked_address'
  | 'dns_failed'
  | 'timeout'
  | 'too_large'
  | 'too_many_redirects'
  | 'network'
  | 'http_status';

export class OutboundError extends Error {
  constructor(
    readonly code: OutboundErrorCode,
    message: string,
    readonly transient: boolean,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

export interface GuardedClientOptions {
  /** Hostnames (exact, case-insensitive), IP addresses or CIDRs exempt from the address guard, each on every port or on one (`host:port`, `[v6]:port`); see allow-list.ts. */
  allow: string[];
  /** Extra trusted CA certificates (PEM); tests pass theirs here. NODE_EXTRA_CA_CERTS is honoured by Node anyway. */
  ca?: string | string[];
}

export interface OutboundRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  /** Total time for connect + response + body, ms. */
  timeoutMs: number;
  /**
   * A 2xx body larger than this fails with too_large (checked against Content-Length first, then
   * while streaming). Any other answer is returned with its body cut at this or 64 KB, whichever is
   * less: its status is the answer, and its body (an error page) only matters to a log.
   */
  maxBytes: number;
  /** 0 = do not follow (a 3xx is returned as-is). Otherwise each hop is re-validated (https, DNS, address guard). */
  maxRedirects: number;
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
  url: string;
  /** ms */
  durationMs: number;
}

export interface GuardedClient {
  /**
   * One request, following redirects if asked. The timeout covers all hops together. 4xx/5xx are
   * returned, not thrown, whatever the size of their body. If `init.signal` aborts, the promise
   * rejects with the signal's reason (as `fetch` does), not with an OutboundError.
   */
  request(url: string, init: OutboundRequest): Promise<OutboundResponse>;
  /** Closes pooled keep-alive sockets. */
  close(): void;
}

type Address = ipaddr.IPv4 | ipaddr.IPv6;

// 64:ff9b::/96 (NAT64) carries an IPv4 address in its low 32 bits; 64:ff9b:1::/48 is local-use.
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
// Everything outside 2000::/3 that range() calls "unicast" is unassigned or deprecated (e.g. ::/96
// IPv4-compatible addresses), so only this block counts as public IPv6.
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
const METADATA_ADDRESSES = [ipaddr.parse('169.254.169.254'), ipaddr.parse('fd00:ec2::254')];

/** True when the address is private, loopback, link-local, CGNAT (100.64/10), unspecified, multicast, broadcast, reserved, unique-local IPv6 (fc00::/7), IPv4-mapped IPv6 of any of those, or a cloud metadata address (169.254.169.254, fd00:ec2::254). */
export function isForbiddenAddress(address: string): boolean {
  const parsed = parseAddress(address);
  // Anything we cannot parse is refused: failing closed is the only safe default for a guard.
  return parsed === undefined || isForbiddenParsed(parsed);
}

function parseAddress(address: string): Address | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return undefined;
  try {
    return ipaddr.parse(bare);
  } catch {
    return undefined;
  }
}

function isForbiddenParsed(address: Address): boolean {
  if (
    METADATA_ADDRESSES.some(
      (m) => m.kind() === address.kind() && m.toNormalizedString() === address.toNormalizedString(),
    )
  ) {
    return true;
  }
  if (address.kind() === 'ipv4') {
    // Allow-by-default would miss ranges ipaddr.js adds later; only plain unicast is public.
    return (address as ipaddr.IPv4).range() !== 'unicast';
  }
  const v6 = address as ipaddr.IPv6;
  switch (v6.range()) {
    case 'unicast':
      return !v6.match(GLOBAL_UNICAST_V6);
    case 'ipv4Mapped':
    case 'rfc6145':
      // The kernel routes these to the embedded IPv4 address, so judge that address.
      return isForbiddenParsed(embeddedIPv4(v6, 6));
    case 'rfc6052':
      return v6.match(NAT64_WELL_KNOWN) ? isForbiddenParsed(embeddedIPv4(v6, 6)) : true;
    case '6to4':
      return isForbiddenParsed(embeddedIPv4(v6, 1));
    default:
      // Link-local, unique-local, multicast, loopback, teredo, documentation, benchmarking, …
      return true;
  }
}

/** The IPv4 address held in two consecutive 16-bit parts starting at `firstPart`. */
function embeddedIPv4(v6: ipaddr.IPv6, firstPart: number): ipaddr.IPv4 {
  const hi = v6.parts[firstPart] ?? 0;
  const lo = v6.parts[firstPart + 1] ?? 0;
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

function normalizeHost(host: string): string {
  let h = host.toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.')) h = h.slice(0, -1);
  return h;
}

interface Target {
  url: URL;
  /** Hostname without IPv6 brackets. */
  host: string;
  /** The URL's port, 443 when it names none. */
  port: number;
}

function parseTarget(input: string | URL, base?: URL): Target {
  // Errors name the redirect when one is at fault, since the caller only knows the first URL.
  const what = base ? 'The redirect target' : 'The URL';
  let url: URL;
  try {
    url = new URL(input, base);
  } catch {
    throw new OutboundError('invalid_url', `${what} is not a valid absolute URL`, false);
  }
  if (url.protocol !== 'https:') {
    throw new OutboundError('not_https', `${what} must use https (got ${url.protocol.slice(0, -1)})`, false);
  }
  if (url.username !== '' || url.password !== '') {
    throw new OutboundError(
      'invalid_url',
      `${what} contains credentials (user:password@), which are not allowed`,
      false,
    );
  }
  const host = normalizeHost(url.hostname);
  if (host === '') throw new OutboundError('invalid_url', `${what} has no host`, false);
  return { url, host, port: url.port === '' ? 443 : Number(url.port) };
}

interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

const TLS_ERROR = /^(ERR_TLS_|ERR_SSL_)|CERT|UNABLE_TO_|SELF_SIGNED|HOSTNAME_MISMATCH/;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// Redirect bodies are thrown away; past this size closing the socket is cheaper than draining it.
const MAX_DISCARDED_REDIRECT_BODY = 64 * 1024;
// Enough of an error page for a log (webhook attempts keep 2048 characters); the rest is never read.
const MAX_KEPT_ERROR_BODY = 64 * 1024;
// One agent per origin and checked addresses; past this many, the least recently used is retired.
const MAX_CACHED_AGENTS = 256;
const IDLE_SOCKET_MS = 30_000;
const MAX_SOCKETS_PER_ORIGIN = 64;
const DNS_CACHE_MS = 5_000;
const MAX_CACHED_ANSWERS = 1_024;
const USER_AGENT = 'Visualizer-Outbound/1 (+https)';

export function createGuardedClient(options: GuardedClientOptions): GuardedClient {
  const allow = parseAllowList(options.allow);
  const secureContext = buildSecureContext(options.ca);
  const agents = new Map<string, https.Agent>();

  function agentFor(target: Target, addresses: ResolvedAddress[]): https.Agent {
    const key = `${target.url.host}|${addresses.map((a) => a.address).join(',')}`;
    let agent = agents.get(key);
    if (agent) {
      // Map order doubles as recency order for eviction.
      agents.delete(key);
      agents.set(key, agent);
      return agent;
    }
    agent = new https.Agent({
      keepAlive: true,
      // Callers bound their own concurrency (delivery slots per endpoint, render workers); a lower
      // cap here would silently override `webhooks.maxConcurrentPerEndpoint`. This only stops a runaway.
      maxSockets: MAX_SOCKETS_PER_ORIGIN,
      timeout: IDLE_SOCKET_MS,
      ...(secureContext ? { secureContext } : {}),
      // The pin: the socket never asks DNS again, it gets the addresses that passed the guard.
      lookup: pinnedLookup(addresses),
      // Several checked addresses (e.g. ::1 and 127.0.0.1) are tried in turn, like happy eyeballs.
      autoSelectFamily: true,
    } as https.AgentOptions);
    agents.set(key, agent);
    if (agents.size > MAX_CACHED_AGENTS) {
      const [oldestKey, oldest] = agents.entries().next().value!;
      agents.delete(oldestKey);
      retire(oldest);
    }
    return agent;
  }

  /**
   * Answers kept for a few seconds: a webhook endpoint or image host is asked for again and again,
   * and each getaddrinfo costs a thread-pool round trip. The guard below still checks every use.
   */
  const answers = new Map<string, { addresses: ResolvedAddress[]; until: number }>();

  async function lookup(host: string, cancellation: Cancellation): Promise<ResolvedAddress[]> {
    const now = performance.now();
    const cached = answers.get(host);
    if (cached && cached.until > now) return cached.addresses;
    const found = await cancellation.race(dns.promises.lookup(host, { all: true }));
    const addresses = found.map((a): ResolvedAddress => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
    answers.delete(host);
    if (addresses.length > 0) answers.set(host, { addresses, until: now + DNS_CACHE_MS });
    if (answers.size > MAX_CACHED_ANSWERS) answers.delete(answers.keys().next().value!);
    return addresses;
  }

  async function resolve(target: Target, cancellation: Cancellation): Promise<ResolvedAddress[]> {
    let addresses: ResolvedAddress[];
    const family = net.isIP(target.host);
    if (family !== 0) {
      addresses = [{ address: target.host, family: family as 4 | 6 }];
    } else {
      try {
        addresses = await lookup(target.host, cancellation);
      } catch (err) {
        if (cancellation.aborted) throw cancellation.reason;
        const code = (err as NodeJS.ErrnoException).code ?? 'error';
        throw new OutboundError('dns_failed', `Could not resolve host ${target.host} (${code})`, true);
      }
      if (addresses.length === 0) {
        throw new OutboundError('dns_failed', `Host ${target.host} has no addresses`, true);
      }
    }
    if (!allowsHost(allow, target.host, target.port)) {
      const blocked = addresses.find(
        (a) => isForbiddenAddress(a.address) && !allowsAddress(allow, a.address, target.port),
      );
      if (blocked) {
        throw new OutboundError(
          'blocked_address',
          `Host ${target.host} resolves to ${blocked.address}, a private or reserved address, which is not allowed`,
          false,
        );
      }
    }
    return addresses;
  }

  async function request(url: string, init: OutboundRequest): Promise<OutboundResponse> {
    const started = performance.now();
    const cancellation = new Cancellation();
    const onCallerAbort = () => cancellation.abort(init.signal?.reason);
    if (init.signal?.aborted) throw init.signal.reason;
    init.signal?.addEventListener('abort', onCallerAbort, { once: true });
    const timer = setTimeout(() => {
      cancellation.abort(new OutboundError('timeout', `No complete response within ${init.timeoutMs} ms`, true));
    }, init.timeoutMs);
    // Redirect bodies being drained in the background, so that their sockets can be reused.
    const draining: IncomingMessage[] = [];

    try {
      let target = parseTarget(url);
      let method: 'GET' | 'POST' = init.method ?? 'GET';
      let headers = lowerCaseKeys(init.headers ?? {});
      let body = typeof init.body === 'string' ? Buffer.from(init.body, 'utf8') : init.body;

      for (let redirects = 0; ; redirects++) {
        const addresses = await resolve(target, cancellation);
        const res = await send(agentFor(target, addresses), target, method, headers, body, cancellation);
        const location = res.headers.location;
        if (init.maxRedirects > 0 && REDIRECT_STATUSES.has(res.statusCode ?? 0) && location) {
          discard(res, draining);
          if (redirects >= init.maxRedirects) {
            throw new OutboundError('too_many_redirects', `More than ${init.maxRedirects} redirects`, false);
          }
          const next = parseTarget(location, target.url);
          const status = res.statusCode ?? 0;
          // As fetch does: 303 always becomes GET, and 301/302 turn a POST into a GET.
          if ((status === 303 || status === 301 || status === 302) && method !== 'GET') {
            method = 'GET';
            body = undefined;
            headers = withoutKeys(headers, ['content-type', 'content-length', 'content-encoding']);
          }
          if (next.url.origin !== target.url.origin) {
            headers = withoutKeys(headers, ['authorization', 'cookie', 'proxy-authorization']);
          }
          target = next;
          continue;
        }
        const status = res.statusCode ?? 0;
        // A 503 with a huge error page is still a 503 (retried by callers), not a final too_large.
        const responseBody =
          status >= 200 && status <= 299
            ? await readBody(res, init.maxBytes, cancellation)
            : await readBody(res, Math.min(init.maxBytes, MAX_KEPT_ERROR_BODY), cancellation, { cut: true });
        return {
          status,
          headers: flattenHeaders(res.headers),
          body: responseBody,
          url: target.url.href,
          durationMs: Math.round(performance.now() - started),
        };
      }
    } catch (err) {
      // Whatever failed after an abort failed because of it; report the abort's reason.
      if (cancellation.aborted) throw cancellation.reason;
      throw err;
    } finally {
      clearTimeout(timer);
      init.signal?.removeEventListener('abort', onCallerAbort);
      // A redirect body still missing when the whole request is done is not coming. Nothing else
      // would close its socket (the agent's idle timeout only covers free sockets), so a host could
      // make us hold one per redirect for good.
      for (const res of draining) if (!res.complete) res.destroy();
    }
  }

  return {
    request,
    close() {
      for (const agent of agents.values()) agent.destroy();
      agents.clear();
    },
  };
}

/**
 * An agent out of the cache is never asked for again, and close() no longer sees it: its idle sockets
 * close now (not after IDLE_SOCKET_MS), and those carrying a request close when it is done.
 * Not destroyed outright, which would cut those requests.
 */
function retire(agent: https.Agent): void {
  // The agent asks this before pooling a freed socket; false makes it close the socket instead.
  agent.keepSocketAlive = () => false;
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
}

function buildSecureContext(ca: string | string[] | undefined): tls.SecureContext | undefined {
  const extra = ca === undefined ? [] : Array.isArray(ca) ? ca : [ca];
  if (extra.length === 0) return undefined;
  // Node's `ca` option replaces the trust store rather than adding to it, so the bundled roots and
  // NODE_EXTRA_CA_CERTS must be added back explicitly for public hosts to keep working.
  const all = [...tls.rootCertificates, ...extra];
  const extraFile = process.env.NODE_EXTRA_CA_CERTS;
  if (extraFile) {
    try {
      all.push(readFileSync(extraFile, 'utf8'));
    } catch {
      // Node itself only warns about an unreadable NODE_EXTRA_CA_CERTS; do the same by ignoring it.
    }
  }
  // One context for every connection: building it from ~150 PEMs per handshake is costly.
  return tls.createSecureContext({ ca: all });
}

function pinnedLookup(addresses: ResolvedAddress[]) {
  return (
    _hostname: string,
    options: dns.LookupOptions,
    callback: (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void,
  ): void => {
    const first = addresses[0]!;
    if (options.all)
      callback(
        null,
        addresses.map((a) => ({ address: a.address, family: a.family })),
      );
    else callback(null, first.address, first.family);
  };
}

function send(
  agent: https.Agent,
  target: Target,
  method: string,
  headers: Record<string, string>,
  body: Uint8Array | undefined,
  cancellation: Cancellation,
): Promise<IncomingMessage> {
  const attempt = (retryOnStaleSocket: boolean): Promise<IncomingMessage> =>
    new Promise((resolve, reject) => {
      const requestHeaders: Record<string, string> = {
        'user-agent': USER_AGENT,
        // We hand back the bytes as sent; no transparent decompression (and no zip bombs).
        'accept-encoding': 'identity',
        ...headers,
      };
      if (body !== undefined) requestHeaders['content-length'] = String(body.byteLength);
      const isIpHost = net.isIP(target.host) !== 0;
      const req = https.request({
        agent,
        method,
        host: target.host,
        port: target.port,
        path: target.url.pathname + target.url.search,
        headers: requestHeaders,
        // SNI must not carry an IP literal (RFC 6066); certificate checks then use the IP itself.
        ...(isIpHost ? {} : { servername: target.host }),
      });
      const off = cancellation.onAbort(() => req.destroy(cancellation.reason as Error));
      let settled = false;
      req.on('response', (res) => {
        settled = true;
        off();
        resolve(res);
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        off();
        if (settled) return;
        settled = true;
        if (cancellation.aborted) return reject(cancellation.reason);
        // A pooled socket the server closed while idle fails on first write; the request never
        // reached the server, so one retry on a fresh socket is safe (Node docs' recommended pattern).
        if (retryOnStaleSocket && req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) {
          return resolve(attempt(false));
        }
        reject(classifyNetworkError(err, target.host));
      });
      req.end(body);
    });
  return attempt(true);
}

function classifyNetworkError(err: NodeJS.ErrnoException, host: string): OutboundError {
  if (err instanceof OutboundError) return err;
  const code = err.code ?? '';
  if (TLS_ERROR.test(code)) {
    return new OutboundError('network', `TLS verification failed for ${host}: ${err.message}`, false);
  }
  return new OutboundError('network', `Could not reach ${host}: ${code || err.message}`, true);
}

/** The body, at most maxBytes of it: more fails with too_large, or with `cut` ends the body there. */
function readBody(
  res: IncomingMessage,
  maxBytes: number,
  cancellation: Cancellation,
  { cut = false } = {},
): Promise<Uint8Array> {
  const declared = Number(res.headers['content-length']);
  if (!cut && res.headers['content-length'] !== undefined && Number.isFinite(declared) && declared > maxBytes) {
    res.destroy();
    return Promise.reject(tooLarge(maxBytes, res.statusCode));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    let off = () => {};
    const finish = (err: unknown, value?: Uint8Array) => {
      if (settled) return;
      settled = true;
      off();
      if (err !== undefined) reject(err);
      else resolve(value!);
    };
    off = cancellation.onAbort(() => {
      finish(cancellation.reason);
      res.destroy();
    });
    res.on('data', (chunk: Buffer) => {
      if (settled) return;
      // Checked before keeping the chunk, so at most maxBytes are ever held.
      if (total + chunk.length > maxBytes) {
        if (cut) {
          chunks.push(chunk.subarray(0, maxBytes - total));
          finish(undefined, Buffer.concat(chunks, maxBytes));
        } else {
          finish(tooLarge(maxBytes, res.statusCode));
        }
        // The rest stays unread, so this connection cannot carry another request.
        res.destroy();
        return;
      }
      total += chunk.length;
      chunks.push(chunk);
    });
    res.on('end', () => finish(undefined, Buffer.concat(chunks, total)));
    res.on('error', (err) => finish(new OutboundError('network', `Response body interrupted: ${err.message}`, true)));
    res.on('close', () => {
      if (!res.complete) finish(new OutboundError('network', 'Connection closed before the response body ended', true));
    });
  });
}

/** Throws a redirect's body away: a small one is drained in the background and listed in `draining`; otherwise the socket is closed. */
function discard(res: IncomingMessage, draining: IncomingMessage[]): void {
  const declared = Number(res.headers['content-length']);
  if (res.headers['content-length'] !== undefined && declared <= MAX_DISCARDED_REDIRECT_BODY) {
    // Draining lets the socket go back to the keep-alive pool.
    res.resume();
    res.on('error', () => {});
    draining.push(res);
  } else {
    res.destroy();
  }
}

/** Carries the status: a webhook receiver that answered 200 with a huge body still accepted the delivery. */
function tooLarge(maxBytes: number, status?: number): OutboundError {
  return new OutboundError('too_large', `Response body is larger than ${maxBytes} bytes`, false, status);
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

function withoutKeys(headers: Record<string, string>, keys: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !keys.includes(k)));
}

function flattenHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
