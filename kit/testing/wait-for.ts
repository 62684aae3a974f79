import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitForOptions {
  /** Give up after this many milliseconds (generous by default: CI machines are slow). */
  timeoutMs?: number;
  /** Milliseconds between two calls of the predicate; raise it when each call costs a request to a rate-limited service. */
  intervalMs?: number;
}

/**
 * What `promise` settles to, or a rejection with `message` once it has not settled within `ms`: a
 * bound on a hang (an await that may never end), not a speed check.
 */
export async function withinHangBound<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([promise, hung]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Polls `predicate` (every 10 ms unless `intervalMs` says otherwise) until it holds; throws,
 * naming `what`, after the timeout (20 s unless told). A number as the third argument is the
 * timeout, as before the options existed.
 */
export async function waitFor(
  what: string,
  predicate: () => boolean | Promise<boolean>,
  options: number | WaitForOptions = {},
): Promise<void> {
  const { timeoutMs = 20_000, intervalMs = 10 } = typeof options === 'number' ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}
