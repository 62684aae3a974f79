import { setTimeout as sleep } from 'node:timers/promises';
import { readEventStream, type StreamMessage } from './event-stream-reader.ts';

/** The service refused the stream for a reason retrying will not fix (a wrong key, a bad filter). */
export class StreamRefused extends Error {
  override name = 'StreamRefused';
}

export interface FollowOptions {
  /** `{base}/v1/events/stream`, with `?types=` when filtered. */
  url: string;
  apiKey: string;
  signal: AbortSignal;
  /** Called on every successful connection: the first, then each reconnection. */
  onOpen(reconnected: boolean): void;
  /** A lost or ended stream, and how long until the next try. */
  onRetry(reason: string, delayMs: number): void;
}

/** Event ids remembered to drop repeats: a resumed stream never repeats one, but a proxy could. */
const maxRemembered = 10_000;
const firstDelayMs = 1_000;
const maxDelayMs = 30_000;

/** The answer's message from the error envelope, or its status line. */
async function refusal(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const { error } = JSON.parse(text) as { error: { type: string; message: string } };
    return `${response.status} ${error.type}: ${error.message}`;
  } catch {
    return `${response.status} ${response.statusText}`.trim();
  }
}

const reasonOf = (error: unknown) => {
  const cause = (error as { cause?: { message?: string } })?.cause;
  return cause?.message ?? (error instanceof Error ? error.message : String(error));
};

/**
 * The organization's events from the service's event stream, each once, until `signal` aborts.
 * A stream that drops or ends (it lasts at most 30 minutes) is resumed with `Last-Event-ID`, with
 * growing pauses while the service is away. The first connection must succeed: a wrong address
 * or key throws at once rather than retrying forever.
 */
export async function* followEvents(options: FollowOptions): AsyncGenerator<StreamMessage> {
  const { url, apiKey, signal } = options;
  const seen = new Set<string>();
  let lastEventId: string | undefined;
  let connected = false;
  let delayMs = firstDelayMs;

  while (!signal.aborted) {
    let problem: string;
    try {
      const headers: Record<string, string> = { authorization: `Bearer ${apiKey}`, accept: 'text/event-stream' };
      if (lastEventId) headers['last-event-id'] = lastEventId;
      const response = await fetch(url, { headers, signal });
      if (!response.ok) {
        const message = await refusal(response);
        // 429 (too many streams) and 5xx pass; anything else is the caller's to fix.
        if (!connected || (response.status < 500 && response.status !== 429)) throw new StreamRefused(message);
        throw new Error(message);
      }
      options.onOpen(connected);
      connected = true;
      delayMs = firstDelayMs;
      for await (const message of readEventStream(response.body!)) {
        if (message.id === undefined) continue;
        lastEventId = message.id;
        if (seen.has(message.id)) continue;
        seen.add(message.id);
        if (seen.size > maxRemembered) seen.delete(seen.values().next().value!);
        yield message;
      }
      problem = 'the stream ended';
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof StreamRefused) throw error;
      if (!connected) throw new StreamRefused(`could not reach ${new URL(url).origin}: ${reasonOf(error)}`);
      problem = `the stream was lost (${reasonOf(error)})`;
    }
    if (signal.aborted) return;
    options.onRetry(problem, delayMs);
    await sleep(delayMs, undefined, { signal }).catch(() => {});
    delayMs = Math.min(delayMs * 2, maxDelayMs);
  }
}
