import { performance } from 'node:perf_hooks';
import {
  OutboundError,
  parseRetryAfter,
  type DeliveryOutcome,
  type DeliveryRequest,
  type GuardedClient,
  type WebhookTransport,
} from '../../kit/plugin.ts';

/** Receivers answer with a status; their body is only kept for the attempt log, so a small cap suffices. */
const MAX_RESPONSE_BYTES = 64 * 1024;
/** Characters of the response body kept in the delivery log. */
const RESPONSE_BODY_CHARS = 2048;
// A UTF-16 unit takes at most 3 UTF-8 bytes, so these bytes hold at least RESPONSE_BODY_CHARS units
// even when a multi-byte sequence is cut at the end; decoding all of a 64 KB body would be wasted work.
const RESPONSE_BODY_DECODE_BYTES = RESPONSE_BODY_CHARS * 3 + 4;
const USER_AGENT = 'Visualizer-Webhooks/1.0';

export interface HttpTransportOptions {
  /** Current time in ms, for resolving an HTTP-date `Retry-After`. Default `Date.now`. */
  now?: () => number;
}

/**
 * The `http` webhook transport: one POST per attempt through the guarded outbound client, so a
 * customer's endpoint URL gets the same SSRF checks (https only, no private addresses, pinned DNS)
 * as any other customer-chosen URL.
 */
export function createHttpTransport(client: GuardedClient, options: HttpTransportOptions = {}): WebhookTransport {
  const now = options.now ?? Date.now;

  return {
    async send(request: DeliveryRequest): Promise<DeliveryOutcome> {
      const headers = { ...request.headers };
      if (!Object.keys(headers).some((name) => name.toLowerCase() === 'user-agent')) {
        // Lets receivers (and their firewalls) tell webhook deliveries from image fetches.
        headers['user-agent'] = USER_AGENT;
      }
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      try {
        const response = await client.request(request.url, {
          method: 'POST',
          headers,
          // Passed through untouched: the signature covers these exact bytes.
          body: request.body,
          timeoutMs: request.timeoutMs,
          maxBytes: MAX_RESPONSE_BYTES,
          // A receiver answering 3xx is reported as such: following it would POST the signed event
          // somewhere the customer never registered (and possibly somewhere internal).
          maxRedirects: 0,
        });
        return {
          status: response.status,
          error: null,
          durationMs: elapsed(),
          responseBody: responseText(response.body),
          retryAfterMs: parseRetryAfter(response.headers['retry-after'], now()),
        };
      } catch (error) {
        // Anything else (a TypeError from a bad argument, a bug in the client) is a programming
        // error and must surface, not be logged as a failed delivery and retried forever.
        if (!(error instanceof OutboundError)) throw error;
        if (error.code === 'too_large' && error.status !== undefined) {
          // The receiver answered 2xx with a body over the cap (the client cuts other statuses'
          // bodies instead): the status is the outcome, and the delivery succeeded.
          return { status: error.status, error: null, durationMs: elapsed(), responseBody: '', retryAfterMs: null };
        }
        return {
          status: null,
          // The code first ("timeout: …", "blocked_address: …"), so the attempt log reads at a glance.
          error: `${error.code}: ${error.message}`,
          durationMs: elapsed(),
          responseBody: '',
          retryAfterMs: null,
        };
      }
    },
  };
}

/** The first 2048 characters of a response body, decoded as UTF-8 (invalid bytes become U+FFFD). */
export function responseText(body: Uint8Array): string {
  const head = body.subarray(0, RESPONSE_BODY_DECODE_BYTES);
  let text = new TextDecoder('utf-8').decode(head).slice(0, RESPONSE_BODY_CHARS);
  // Do not end on half of a surrogate pair: a lone surrogate is not valid text to store.
  const last = text.charCodeAt(text.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) text = text.slice(0, -1);
  // Postgres text columns reject NUL, and the excerpt is stored in the attempt log.
  return text.replaceAll('\u0000', '\uFFFD');
}
