import { ConnectionError, VisualizerError } from './errors.ts';
import { readEventStream } from './event-stream-reader.ts';
import { sleep } from './retry.ts';
import type { WebhookEvent } from './types.ts';

const firstReconnectDelayMs = 1_000;
const maxReconnectDelayMs = 30_000;
/** Event ids remembered to drop repeats: a resumed stream never repeats one, but a proxy could. */
const maxRemembered = 10_000;

/** A pause before reconnecting, and why the connection was lost. */
export interface EventStreamRetry {
  /** `null` when the service ended the stream (its 30-minute limit, a restart); else the lost connection's or refused reconnection's error. */
  error: unknown;
  /** Milliseconds until the next try: 1 s, doubling while tries keep failing, at most 30 s. */
  delayMs: number;
}

export interface EventStreamOptions {
  /** Continue after this event id (from an earlier stream's `lastEventId`); default: events from now on. */
  lastEventId?: string;
  /** Closes the stream. */
  signal?: AbortSignal;
  /** Called when the stream was lost or ended, before the pause and the reconnection that follow. */
  onRetry?(retry: EventStreamRetry): void;
  /** Called when a reconnection is streaming again, resuming after the last event received. */
  onReconnect?(): void;
}

/** Events while they happen; iterate it once, `break` or `close()` to end it. */
export interface EventStream<Item = WebhookEvent> extends AsyncIterable<Item> {
  /** The id of the last event received, to resume a later stream after it. */
  readonly lastEventId: string | undefined;
  close(): void;
}

/** One event as the stream carries it: `data` is the event's JSON exactly as webhook deliveries carry it. */
export interface EventStreamMessage {
  id: string;
  /** The event's type. */
  event: string;
  data: string;
}

/** Opens one connection: the response body, after `Last-Event-ID` when given. */
export type Connect = (lastEventId: string | undefined, signal: AbortSignal) => Promise<ReadableStream<Uint8Array>>;

/**
 * A lost connection (fetch reports a dropped body as a TypeError), a service away (5xx) or too many
 * streams (429) pass with time; any other refusal (a revoked key, an unknown `Last-Event-ID`) needs the caller.
 */
const transient = (error: unknown) =>
  error instanceof ConnectionError ||
  error instanceof TypeError ||
  (error instanceof VisualizerError && (error.status === 429 || error.status >= 500));

/**
 * Resolves once the service answers, which it does only after noting what already happened, so
 * every event from then on arrives; a refused or failed first connection rejects. The service ends
 * a stream after a while (30 minutes) and when it restarts, and connections drop: each time this
 * pauses (growing while the service stays away) and reconnects with `Last-Event-ID`, going on with
 * the events after the last one received, each once. A reconnection refused for a reason retrying
 * cannot fix (a 4xx other than 429) ends the iteration with its error.
 */
export async function openEventStream<Item>(
  connect: Connect,
  options: EventStreamOptions,
  decode: (message: EventStreamMessage) => Item,
): Promise<EventStream<Item>> {
  const closed = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, closed.signal]) : closed.signal;
  let lastEventId = options.lastEventId;
  let body: ReadableStream<Uint8Array> | null = await connect(lastEventId, signal);
  const seen = new Set<string>();

  async function* events(): AsyncGenerator<Item, void, undefined> {
    let delayMs = firstReconnectDelayMs;
    try {
      for (;;) {
        let error: unknown = null;
        try {
          if (body === null) {
            body = await connect(lastEventId, signal);
            delayMs = firstReconnectDelayMs;
            options.onReconnect?.();
          }
          for await (const message of readEventStream(body, signal)) {
            // Only events carry an id, and one without could be neither resumed after nor deduplicated.
            if (message.id === undefined) continue;
            lastEventId = message.id;
            if (seen.has(message.id)) continue;
            seen.add(message.id);
            if (seen.size > maxRemembered) seen.delete(seen.values().next().value!);
            yield decode({ id: message.id, event: message.event, data: message.data });
          }
        } catch (caught) {
          if (signal.aborted) return;
          if (!transient(caught)) throw caught;
          error = caught;
        }
        body = null;
        if (signal.aborted) return;
        options.onRetry?.({ error, delayMs });
        // A pause even after a clean end, so a service that keeps ending streams at once is not asked again in a tight loop.
        await sleep(delayMs, signal).catch(() => {});
        if (signal.aborted) return;
        delayMs = Math.min(delayMs * 2, maxReconnectDelayMs);
      }
    } finally {
      closed.abort();
    }
  }

  const iterator = events();
  return {
    get lastEventId() {
      return lastEventId;
    },
    close: () => {
      closed.abort();
      // A body not yet being read is not cancelled by the abort; one being read is, and refuses this.
      void body?.cancel().catch(() => {});
    },
    [Symbol.asyncIterator]: () => iterator,
  };
}
