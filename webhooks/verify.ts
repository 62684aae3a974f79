/**
 * Verifies Visualizer webhook deliveries (Standard Webhooks scheme) on the receiving side.
 *
 * Self-contained on purpose (node:crypto only, no imports from the rest of the project): copy this
 * file into your service. Usage, with the RAW request body (before any JSON middleware):
 *
 *   const event = verifyWebhook(process.env.VISUALIZER_WEBHOOK_SECRET!, req.headers, rawBody);
 *
 * It throws WebhookVerificationError when the delivery is not authentic or is outside the replay
 * window (answer 400 and do not process it); otherwise it returns the parsed event. Deliveries can
 * repeat: deduplicate on `event.id` (equal to the `webhook-id` header).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export interface VerifyOptions {
  /** Accepted distance between `webhook-timestamp` and now, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** Current time in milliseconds (for tests). Default `Date.now`. */
  now?: () => number;
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

const SECRET_PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * Verifies a delivery against the raw body bytes; returns the parsed JSON event on success, throws
 * WebhookVerificationError otherwise. A malformed `secret` or `rawBody` argument throws TypeError
 * instead: that is a bug in the receiver's setup, not a bad delivery, and should not be answered
 * as one.
 */
export function verifyWebhook(
  secret: string,
  headers: HeaderSource,
  rawBody: string | Uint8Array,
  options: VerifyOptions = {},
): unknown {
  const key = secretKey(secret);
  const body = bodyBytes(rawBody);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!Number.isFinite(tolerance) || tolerance < 0) {
    throw new TypeError('toleranceSeconds must be a non-negative number');
  }

  const id = singleHeader(headers, 'webhook-id');
  const timestampHeader = singleHeader(headers, 'webhook-timestamp');
  const signatures = headerValues(headers, 'webhook-signature').join(' ').trim();
  if (signatures === '') throw new WebhookVerificationError('Missing required header webhook-signature');

  // Strictly integer seconds: parseInt would accept "1614265330abc" or "1.6e9" and let a
  // malformed header through as some other time.
  if (!/^\d+$/.test(timestampHeader) || !Number.isSafeInteger(Number(timestampHeader))) {
    throw new WebhookVerificationError('Invalid webhook-timestamp: expected integer Unix seconds');
  }
  const timestamp = Number(timestampHeader);
  const now = Math.floor((options.now ?? Date.now)() / 1000);
  // The replay guard: a captured delivery cannot be re-sent later (or pre-dated) beyond this window.
  if (now - timestamp > tolerance) throw new WebhookVerificationError('Message timestamp too old');
  if (timestamp - now > tolerance) throw new WebhookVerificationError('Message timestamp too new');

  // Signed over the exact received bytes; the timestamp is hashed as the header's text, which the
  // regex above guarantees is the canonical decimal form.
  const expected = Buffer.from(
    createHmac('sha256', key).update(`${id}.${timestampHeader}.`, 'utf8').update(body).digest('base64'),
    'utf8',
  );

  // Entries are space-separated. Node joins a repeated header with ", ", so a comma directly
  // before whitespace separates entries too (no base64 signature ends in a comma).
  let matched = false;
  for (const entry of signatures.split(/,?\s+/)) {
    const comma = entry.indexOf(',');
    if (comma === -1) continue;
    // Only v1 (HMAC-SHA256) is known; other schemes (e.g. v1a asymmetric) are skipped, not failed,
    // so a sender may add them alongside.
    if (entry.slice(0, comma) !== 'v1') continue;
    const candidate = Buffer.from(entry.slice(comma + 1), 'utf8');
    // timingSafeEqual needs equal lengths; the expected length (44) is public, so checking it leaks nothing.
    if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) {
      matched = true;
      break;
    }
  }
  if (!matched) throw new WebhookVerificationError('No matching signature found');

  // Parsed only after the signature matched: untrusted input never reaches JSON.parse.
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('Payload is not valid JSON');
  }
}

function secretKey(secret: string): Buffer {
  if (typeof secret !== 'string') throw new TypeError('The webhook secret must be a string ("whsec_…")');
  // Like the reference verifier, the prefix is optional.
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  // Buffer.from(…, 'base64') silently skips invalid characters, so a mistyped secret would become
  // some other key and every delivery would "fail verification"; say what is wrong instead.
  if (!BASE64.test(encoded) || encoded.replace(/=+$/, '').length % 4 === 1) {
    throw new TypeError('The webhook secret must be "whsec_" followed by base64');
  }
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new TypeError('The webhook secret is empty');
  return key;
}

function bodyBytes(rawBody: string | Uint8Array): Buffer {
  if (typeof rawBody === 'string') return Buffer.from(rawBody, 'utf8');
  if (rawBody instanceof Uint8Array) return Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  // The usual mistake: passing the body after a JSON middleware parsed it. Re-serializing it would
  // not reproduce the signed bytes, so refuse rather than fail mysteriously.
  throw new TypeError('rawBody must be the raw request body (string or bytes), not parsed JSON');
}

/** Every value of a header, case-insensitively, from a fetch `Headers` or a Node-style record. */
function headerValues(headers: HeaderSource, name: string): string[] {
  if (typeof (headers as Headers).get === 'function') {
    const value = (headers as Headers).get(name);
    return value === null ? [] : [value];
  }
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    if (Array.isArray(value)) values.push(...value);
    else values.push(value);
  }
  return values;
}

function singleHeader(headers: HeaderSource, name: string): string {
  const values = [...new Set(headerValues(headers, name).map((v) => v.trim()))].filter((v) => v !== '');
  if (values.length === 0) throw new WebhookVerificationError(`Missing required header ${name}`);
  // Two different ids or timestamps cannot both be the signed one; refuse instead of guessing.
  if (values.length > 1)
    throw new WebhookVerificationError(`Header ${name} appears more than once with different values`);
  return values[0]!;
}
