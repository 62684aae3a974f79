/**
 * Webhook transport port: sends one signed delivery attempt and reports what happened.
 * Adapter: `http` (guarded outbound HTTPS client).
 * The guarantees an adapter gives are on `WebhookTransport` (what an editor shows on hover).
 */
export interface DeliveryRequest {
  url: string;
  headers: Record<string, string>;
  body: Uint8Array;
  timeoutMs: number;
}

export interface DeliveryOutcome {
  /** HTTP status, or null when no response arrived. */
  status: number | null;
  /** Network or timeout error, null when a response arrived. */
  error: string | null;
  durationMs: number;
  /** First 2 KB of the response body. */
  responseBody: string;
  /** `Retry-After` in milliseconds, when the receiver gave one. */
  retryAfterMs: number | null;
}

/**
 * Sends one signed webhook delivery attempt and reports what happened.
 *
 * An adapter must guarantee:
 * - Exactly one HTTP request per call, with the body bytes and headers unchanged.
 * - Redirects are not followed (a 3xx is reported, not chased).
 * - It resolves with the outcome for any response or network failure and rejects only on
 *   programming errors, so every attempt can be logged.
 */
export interface WebhookTransport {
  send(request: DeliveryRequest): Promise<DeliveryOutcome>;
}
