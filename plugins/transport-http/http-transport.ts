import { performance } from 'node:perf_hooks';
import { OutboundError, type DeliveryOutcome, type DeliveryRequest, type GuardedClient, type WebhookTransport } from '../../kit/plugin.ts';

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

const MONTHS: Record<string, number> = {
  jan: 0, feb: 1, mar: 2, apr: 3, may: 4, jun: 5, jul: 6, aug: 7, sep: 8, oct: 9, nov: 10, dec: 11,
};
// RFC 9110 §5.6.7: recipients must accept IMF-fixdate and the two obsolete forms.
const IMF_FIXDATE = /^[A-Za-z]{3}, (\d{2}) ([A-Za-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC850_DATE = /^[A-Za-z]+, (\d{2})-([A-Za-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME_DATE = /^[A-Za-z]{3} ([A-Za-z]{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

/**
 * `Retry-After` in ms from `nowMs`: delta-seconds or an HTTP-date (a date already past is 0).
 * Null when absent or malformed. Date.parse is not used: it accepts almost anything ("7.5" is a
 * date in V8) and reads asctime dates as local time.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds * 1000) ? seconds * 1000 : null;
  }
  const date = parseHttpDate(text);
  return date === null ? null : Math.max(0, date - nowMs);
}

function parseHttpDate(text: string): number | null {
  let parts: { day: string; month: string; year: number; hh: string; mm: string; ss: string };
  let m: RegExpExecArray | null;
  if ((m = IMF_FIXDATE.exec(text))) {
    parts = { day: m[1]!, month: m[2]!, year: Number(m[3]), hh: m[4]!, mm: m[5]!, ss: m[6]! };
  } else if ((m = RFC850_DATE.exec(text))) {
    // RFC 9110: a two-digit year more than 50 years in the future means the previous century.
    const yy = Number(m[3]);
    const year = 2000 + yy > new Date().getUTCFullYear() + 50 ? 1900 + yy : 2000 + yy;
    parts = { day: m[1]!, month: m[2]!, year, hh: m[4]!, mm: m[5]!, ss: m[6]! };
  } else if ((m = ASCTIME_DATE.exec(text))) {
    parts = { month: m[1]!, day: m[2]!, hh: m[3]!, mm: m[4]!, ss: m[5]!, year: Number(m[6]) };
  } else {
    return null;
  }
  const month = MONTHS[parts.month.toLowerCase()];
  const [day, hours, minutes, seconds] = [Number(parts.day.trim()), Number(parts.hh), Number(parts.mm), Number(parts.ss)];
  if (month === undefined || day < 1 || hours > 23 || minutes > 59 || seconds > 60) return null;
  // A leap second (:60) is read as :59 rather than rolling into the next minute.
  const ms = Date.UTC(parts.year, month, day, hours, minutes, Math.min(seconds, 59));
  // Date.UTC rolls over (Feb 31 becomes Mar 3); such a date is malformed, not a later one.
  return new Date(ms).getUTCDate() === day ? ms : null;
}
