import { signatureHeader } from '../core/domain/webhook-signature.ts';

/** As long as the service gives a receiver (`webhooks.timeoutMs`). */
const timeoutMs = 10_000;

export type ForwardOutcome = { status: number } | { error: string };

/**
 * Delivers one event to a URL on the developer's machine as the service would: the same body
 * bytes, signed with the Standard Webhooks headers. Plain fetch on purpose: the service's guarded
 * client refuses loopback and plain http, which is exactly where a local receiver listens.
 */
export async function forwardWebhook(
  url: string,
  secret: string,
  event: { id: string; body: string },
  stop: AbortSignal,
): Promise<ForwardOutcome> {
  const timestamp = Math.floor(Date.now() / 1000);
  try {
    const response = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'visualizer-listen',
        'webhook-id': event.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader([secret], event.id, timestamp, event.body),
      },
      body: event.body,
      signal: AbortSignal.any([stop, AbortSignal.timeout(timeoutMs)]),
    });
    // Only the status matters; the body is not read, so a large answer costs nothing.
    await response.body?.cancel().catch(() => {});
    return { status: response.status };
  } catch (error) {
    return { error: describeFetchError(error) };
  }
}

/** undici says "fetch failed" and keeps the reason (ECONNREFUSED …) in `cause`. */
function describeFetchError(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${timeoutMs / 1000} s`;
  const cause = (error as { cause?: { message?: string; code?: string } })?.cause;
  if (cause?.message) return cause.message;
  return error instanceof Error ? error.message : String(error);
}
