import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): what the sender puts in
 * `webhook-signature`. The receiver side is `webhooks/verify.ts`.
 *
 * signature = base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)), key = base64-decoded secret
 * after `whsec_`. The body is signed as the exact bytes that go on the wire: re-serializing JSON
 * here would sign different bytes than the receiver verifies.
 */

const SECRET_PREFIX = 'whsec_';
// Standard base64 alphabet, padding optional: secrets minted elsewhere sometimes drop the padding.
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** `whsec_` + base64 of 32 random bytes (256 bits: RFC 2104 advises an HMAC key at least as long as the hash output). */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** Keys of the secrets signed with recently: every attempt to an endpoint signs with the same few. */
const keys = new Map<string, KeyObject>();
const MAX_CACHED_KEYS = 1_000;

function cachedKey(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    key = createSecretKey(secretKey(secret));
    if (keys.size >= MAX_CACHED_KEYS) keys.delete(keys.keys().next().value!);
    keys.set(secret, key);
  }
  return key;
}

/** The HMAC key of a secret. Throws on a malformed secret: signing with a garbage key would produce deliveries no receiver can verify. */
function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  // Buffer.from(…, 'base64') silently skips invalid characters, so validate first.
  if (!BASE64.test(encoded) || encoded.replace(/=+$/, '').length % 4 === 1) {
    throw new TypeError('Webhook secret must be "whsec_" followed by base64');
  }
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new TypeError('Webhook secret is empty');
  return key;
}

/** base64 HMAC-SHA256 of `${id}.${timestamp}.${body}` keyed by the base64-decoded part after `whsec_`; returns `v1,<base64>`. */
export function signWebhook(secret: string, id: string, timestamp: number, body: string | Uint8Array): string {
  // The receiver parses the header as integer seconds; a fractional or millisecond value would
  // sign a string it never reconstructs (or fail its replay window).
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new RangeError(`Webhook timestamp must be a non-negative integer of Unix seconds (got ${timestamp})`);
  }
  const hmac = createHmac('sha256', cachedKey(secret));
  hmac.update(`${id}.${timestamp}.`, 'utf8');
  // Bytes are hashed as given; a string is hashed as its UTF-8 encoding, i.e. what is sent.
  if (typeof body === 'string') hmac.update(body, 'utf8');
  else hmac.update(body);
  return `v1,${hmac.digest('base64')}`;
}

/**
 * The `webhook-signature` header: space-separated `v1,` entries, one per active secret. After a
 * rotation the new secret and every previous one still in its grace period sign, so receivers
 * holding any of them verify.
 */
export function signatureHeader(secrets: string[], id: string, timestamp: number, body: string | Uint8Array): string {
  // A delivery without any signature can never verify; that is a caller bug, not a delivery outcome.
  if (secrets.length === 0) throw new TypeError('At least one webhook secret is needed to sign');
  return secrets.map((secret) => signWebhook(secret, id, timestamp, body)).join(' ');
}
