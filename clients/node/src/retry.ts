import { ConnectionError } from './errors.ts';
import { retryAfterMs } from './retry-after.ts';

export type Fetch = (request: Request) => Promise<Response>;

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** Longest wait before a retry; a `Retry-After` asking for more is not waited out but returned. */
  maxRetryDelayMs: number;
  /** An attempt whose answer has not begun (headers) by then is abandoned, as a lost connection is. */
  timeoutMs: number;
}

export interface RetryOptions {
  /**
   * The request may be sent again after an answer that does not say it was refused untouched
   * (a 503, a lost connection). Defaults to GET/HEAD, or any request with an `Idempotency-Key`.
   */
  replaySafe?: boolean;
}

/**
 * Wraps `fetch` with bounded retries:
 * - 429 on any request: the service's rate limiter refuses before it reads the body or does any
 *   work, so resending is safe whatever the method;
 * - 503 and network errors only when the request is replay-safe (see RetryOptions), since the
 *   first attempt may have taken effect.
 * Waits honour `Retry-After` (seconds or an HTTP date), else back off exponentially with jitter.
 */
export function retryingFetch(fetch: Fetch, policy: RetryPolicy) {
  return async (request: Request, options: RetryOptions = {}): Promise<Response> => {
    const replaySafe =
      options.replaySafe ??
      (request.method === 'GET' || request.method === 'HEAD' || request.headers.has('idempotency-key'));
    for (let attempt = 0; ; attempt += 1) {
      const last = attempt >= policy.maxRetries;
      let response: Response;
      // Bounds the wait for the answer's headers only: a body may take its time (an event stream lasts minutes).
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(), policy.timeoutMs);
      try {
        // Each attempt sends a clone, so the body can be sent again; the last sends the original.
        response = await fetch(
          new Request(last ? request : request.clone(), { signal: AbortSignal.any([request.signal, timeout.signal]) }),
        );
      } catch (error) {
        if (request.signal.aborted || (isAbort(error) && !timeout.signal.aborted)) throw error;
        const cause = timeout.signal.aborted ? new Error(`no answer within ${policy.timeoutMs} ms`) : error;
        if (last || !replaySafe) throw new ConnectionError(request.method, request.url, cause);
        await sleep(backoffMs(attempt, policy), request.signal);
        continue;
      } finally {
        clearTimeout(timer);
      }
      if (last || !(response.status === 429 || (response.status === 503 && replaySafe))) return response;
      const delay = retryAfterMs(response.headers.get('retry-after')) ?? backoffMs(attempt, policy);
      if (delay > policy.maxRetryDelayMs) return response;
      await response.body?.cancel();
      await sleep(delay, request.signal);
    }
  };
}

/** 0.5 s, 1 s, 2 s … with ±25 % jitter so many clients refused together do not come back together. */
function backoffMs(attempt: number, policy: RetryPolicy): number {
  const base = Math.min(policy.maxRetryDelayMs, 500 * 2 ** attempt);
  return Math.round(base * (0.75 + Math.random() * 0.5));
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it is aborted. */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
