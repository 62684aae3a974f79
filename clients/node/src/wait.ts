import { ConnectionError, GenerationFailedError, GenerationTimeoutError, VisualizerError } from './errors.ts';
import { sleep } from './retry.ts';
import type { Generation } from './types.ts';

export interface WaitOptions {
  /** Give up after this long, rejecting with GenerationTimeoutError. Default 120 000 ms (most renders take under 30 s). */
  timeoutMs?: number;
  /** Time between polls; the specification asks for 1–2 s. Default 1 000 ms, at least 1 000. */
  intervalMs?: number;
  /** Stops waiting (and the poll in flight), rejecting with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * Polls a generation until it is terminal: resolves with it when `complete`, rejects with
 * GenerationFailedError when `failed` and GenerationTimeoutError past the timeout. A poll that
 * fails for a passing reason (no connection, 429, 5xx, after the client's own retries) does not
 * end the wait; other errors (404, 401) do.
 */
export async function waitForGeneration(
  retrieve: (id: string, signal: AbortSignal) => Promise<Generation>,
  target: string | Generation,
  options: WaitOptions = {},
): Promise<Generation> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const intervalMs = options.intervalMs ?? 1_000;
  if (!(intervalMs >= 1_000))
    throw new RangeError('intervalMs must be at least 1000: the service asks to be polled every 1 to 2 seconds');
  if (!(timeoutMs > 0)) throw new RangeError('timeoutMs must be above 0');
  const id = typeof target === 'string' ? target : target.id;
  let generation = typeof target === 'string' ? null : target;

  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  // With a generation in hand the first poll waits an interval; with an id it asks at once.
  let pollNow = generation === null;
  try {
    for (;;) {
      if (generation?.status === 'complete') return generation;
      if (generation?.status === 'failed') throw new GenerationFailedError(generation);
      if (!pollNow) await sleep(intervalMs, signal);
      pollNow = false;
      try {
        generation = await retrieve(id, signal);
      } catch (error) {
        if (!isPassing(error)) throw error;
      }
    }
  } catch (error) {
    if (error instanceof GenerationFailedError || options.signal?.aborted || !deadline.aborted) throw error;
    throw new GenerationTimeoutError(id, timeoutMs, generation);
  }
}

function isPassing(error: unknown): boolean {
  return (
    error instanceof ConnectionError ||
    (error instanceof VisualizerError && (error.status === 429 || error.status >= 500))
  );
}
