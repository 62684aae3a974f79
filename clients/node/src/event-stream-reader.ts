/** One message of a `text/event-stream` (comments and `retry` fields are dropped). */
export interface StreamMessage {
  id: string | undefined;
  event: string;
  data: string;
}

/** A line longer than this ends the stream: no event of this service comes near it, and memory stays bounded. */
const maxLineLength = 8 * 1024 * 1024;

/**
 * The messages of a Server-Sent Events body, as the WHATWG event-stream algorithm reads them:
 * lines end at CRLF, LF or CR; `field: value` lines fill the message and a blank line dispatches
 * it; `data` lines join with newlines; a message without data is not dispatched. An abort of
 * `signal` cancels the body and ends the messages.
 */
export async function* readEventStream(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
): AsyncGenerator<StreamMessage> {
  let buffer = '';
  let id: string | undefined;
  let event = '';
  let data: string[] = [];
  let pendingCr = false;

  /** The complete lines of `text` after what came before it; the unfinished rest waits in `buffer`. */
  function* lines(text: string): Generator<string> {
    let from = 0;
    // A CR ending the previous chunk may be the first half of a CRLF.
    if (pendingCr && text.startsWith('\n')) from = 1;
    pendingCr = false;
    for (let index = from; index < text.length; index++) {
      const char = text[index];
      if (char !== '\n' && char !== '\r') continue;
      yield buffer + text.slice(from, index);
      buffer = '';
      if (char === '\r') {
        if (index + 1 === text.length) pendingCr = true;
        else if (text[index + 1] === '\n') index++;
      }
      from = index + 1;
    }
    buffer += text.slice(from);
    if (buffer.length > maxLineLength) throw new Error(`event stream line longer than ${maxLineLength} characters`);
  }

  const decoder = new TextDecoder();
  const reader = body.getReader();
  // Cancelling the body ourselves ends a pending read at once, whether or not fetch passes the abort on to it.
  const cancel = () => void reader.cancel().catch(() => {});
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    for (;;) {
      if (signal?.aborted) return;
      const { value: bytes, done } = await reader.read();
      if (done) return;
      yield* messagesOf(bytes);
    }
  } finally {
    signal?.removeEventListener('abort', cancel);
    cancel();
  }

  /** The messages that `bytes` completes. */
  function* messagesOf(bytes: Uint8Array): Generator<StreamMessage> {
    for (const line of lines(decoder.decode(bytes, { stream: true }))) {
      if (line === '') {
        if (data.length) yield { id, event: event || 'message', data: data.join('\n') };
        event = '';
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') data.push(value);
      else if (field === 'event') event = value;
      else if (field === 'id' && !value.includes('\u0000')) id = value;
    }
  }
}
