import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { WebhookEvent } from './types.ts';

export { WebhookVerificationError };

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * Verifies a delivery with the `standardwebhooks` package and returns its event, typed.
 *
 * `rawBody` must be the bytes as received, before any JSON parser: re-serialized JSON is not what
 * was signed. Throws WebhookVerificationError for a delivery that is not authentic or is more than
 * 5 minutes from now (answer 400, do not process it), and TypeError for a setup mistake (a secret
 * that is not `whsec_` + base64, a body that was already parsed), which is not the sender's fault.
 * Deliveries are at-least-once: deduplicate on `event.id` (the `webhook-id` header).
 */
export function verifyWebhook(
  rawBody: string | Uint8Array | ArrayBuffer,
  headers: WebhookHeaders,
  secret: string,
): WebhookEvent {
  return webhookFor(secret).verify(bodyOf(rawBody), headerRecord(headers)) as WebhookEvent;
}

function webhookFor(secret: string): Webhook {
  if (typeof secret !== 'string' || !/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(secret)) {
    throw new TypeError("The webhook secret must be the endpoint's `whsec_…` value as shown when it was created");
  }
  return new Webhook(secret);
}

/** standardwebhooks takes a string or a Buffer, not other byte views. */
function bodyOf(rawBody: unknown): string | Buffer {
  if (typeof rawBody === 'string' || Buffer.isBuffer(rawBody)) return rawBody;
  if (rawBody instanceof Uint8Array) return Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  if (rawBody instanceof ArrayBuffer) return Buffer.from(rawBody);
  throw new TypeError(
    'rawBody must be the raw request body (string, Buffer or Uint8Array), read before any JSON parser',
  );
}

/** Lower-cased names; a repeated header (an array, or node's ", "-joined form) becomes the space-separated list the scheme uses. */
function headerRecord(headers: WebhookHeaders): Record<string, string> {
  const entries: Array<[string, string | string[] | undefined]> = [];
  if (headers instanceof Headers)
    headers.forEach((value, name) => {
      entries.push([name, value]);
    });
  else entries.push(...Object.entries(headers));
  const record: Record<string, string> = {};
  for (const [name, value] of entries) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(' ') : value;
    record[name.toLowerCase()] = name.toLowerCase() === 'webhook-signature' ? text.replace(/,\s+/g, ' ') : text;
  }
  return record;
}
