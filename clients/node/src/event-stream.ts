import { sleep } from './retry.ts';
import type { WebhookEvent } from './types.ts';

const reconnectDelayMs = 1_000;

export interface EventStreamOptions {
  /** Continue after this event id (from an earlier stream's `lastEventId`); default: events from now on. */
  lastEventId?: string;
  /** Closes the stream. */
  signal?: AbortSignal;
}

/** Events while they happen; iterate it once, `break` or `close()` to end it. */
export interface EventStream extends AsyncIterable<WebhookEvent> {
  /** The id of the last event received, to resume a later stream after it. */
  readonly lastEventId: string | undefined;
  close(): void;
}

/** Opens one connection: the response body, after `Last-Event-ID` when given. */
export type Connect = (lastEventId: string | undefined, signal: AbortSignal) => Promise<ReadableStream<Uint8Array>>;

/**
 * Resolves once the service answers, which it does only after noting what already happened, so
 * every event from then on arrives. The service ends a stream after a while (30 minutes) and when
 * it restarts, and connections drop: each time this reconnects with `Last-Event-ID` and goes on
 * with the events after the last one received. A refused reconnection (after the client's retries)
 * ends the iteration with its error.
 */
export async function openEventStream(connect: Connect, options: EventStreamOptions = {}): Promise<EventStream> {
  const closed = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, closed.signal]) : closed.signal;
  let lastEventId = options.lastEventId;
  let body: ReadableStream<Uint8Array> | null = await connect(lastEventId, signal);

  async function* events(): AsyncGenerator<WebhookEvent, void, undefined> {
    try {
      for (;;) {
        try {
          for await (const message of messages(body!)) {
            if (message.id !== undefined) lastEventId = message.id;
            if (message.data !== '') yield JSON.parse(message.data) as WebhookEvent;
          }
        } catch (error) {
          if (signal.aborted) return;
          // A dropped connection mid-stream: reconnect below, like an ended stream.
          if (!(error instanceof TypeError)) throw error;
        }
        // A pause first, so a service that keeps ending streams at once is not asked again in a tight loop.
        await sleep(reconnectDelayMs, signal).catch(() => {});
        if (signal.aborted) return;
        body = null;
        body = await connect(lastEventId, signal);
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
      void body?.cancel().catch(() => {});
    },
    [Symbol.asyncIterator]: () => iterator,
  };
}

interface Message {
  id: string | undefined;
  event: string;
  data: string;
}

/** Server-Sent Events messages of a body (the WHATWG `text/event-stream` format): comments skipped, `data:` lines joined. */
async function* messages(body: ReadableStream<Uint8Array>): AsyncGenerator<Message, void, undefined> {
  const decoder = new TextDecoder();
  let buffer = '';
  let message: Message = { id: undefined, event: 'message', data: '' };
  let dataLines: string[] = [];
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    const lines = buffer.split('\n');
    buffer = lines.pop()!;
    for (const raw of lines) {
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (line === '') {
        if (dataLines.length > 0) yield { ...message, data: dataLines.join('\n') };
        message = { id: message.id, event: 'message', data: '' };
        dataLines = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') dataLines.push(value);
      else if (field === 'event') message.event = value;
      else if (field === 'id') message.id = value;
    }
  }
}
