import { rateWindow, type RateDecision, type RateLimiter, type RateRule } from './limits.ts';

/**
 * A shared store's window limiter as a reservation uses it (rate-limiter-flexible's `consume`):
 * counts `points` of `key` in the key's current window and resolves with the window's count and
 * the time left in it; past the window's points it rejects with the same (the points are counted
 * all the same), and with an Error when the store failed.
 */
export interface WindowStore {
  consume(key: string, points: number): Promise<unknown>;
}

interface WindowCount {
  consumedPoints: number;
  msBeforeNext: number;
}

/** The window's count in a limiter's answer, or null when the answer is not one (the store's error). */
function windowCountOf(answer: unknown): WindowCount | null {
  if (answer instanceof Error || typeof answer !== 'object' || answer === null) return null;
  const { consumedPoints, msBeforeNext } = answer as Partial<WindowCount>;
  return typeof consumedPoints === 'number' && typeof msBeforeNext === 'number'
    ? { consumedPoints, msBeforeNext }
    : null;
}

/** How a store call for a key ended, for every take that waited on it. */
type Outcome = { refused: false } | { refused: true; retryAfterMs: number } | { failed: unknown };

/** What this process holds of one key's window. */
interface Reservation {
  /** Points the store counted for this process and it has not handed out yet. */
  left: number;
  /** When they lapse: the end of the store's window they were counted in, at the earliest it can be. */
  until: number;
  /** The store call in flight for the key (one at a time), and the takes waiting on it. */
  refill: Promise<Outcome> | null;
  waiting: number;
  /** This process's takes of the key per ms, an average decaying over `memoryMs`. */
  rate: number;
  lastTakeAt: number;
}

/** The share of a window's points one process may hold for a key. */
const mostShare = 1 / 10;
/** The share of a window that a reservation is sized to last at the key's recent rate. */
const holdShare = 1 / 4;

/**
 * A RateLimiter over a shared store's window limiter that hands a key's points out of
 * reservations: this process asks the store for several of a key's points at once, hands them out
 * from memory, and asks for the next ones in the background while a quarter of them is left, so a
 * key taken steadily waits on no round trip and makes one per reservation.
 *
 * Never more than the store counted for this process is handed out, and only until the store
 * window they were counted in ends, so across processes a key never gets more than its budget. A
 * reservation is sized to what this process took of the key lately (what it would take at that
 * rate in a quarter of a window, or in what is left of this one if less), and a process holds at
 * most a tenth of a window's points of a key (at least one), reservations in flight included. A
 * refused reservation still grants what the window had left, so a refusal means every point of
 * the window has been handed out or is held by some process, which hands it to its own next takes
 * of the key; what is held unspent when the window ends is lost. A key found spent is refused by
 * the store limiter from memory until its window ends (its `inMemoryBlockOnConsumed`), without a
 * round trip. `now` must be the clock the store limiter times its answers by.
 */
export function reservingRateLimiter(
  store: WindowStore,
  rule: RateRule,
  storeKey: (key: string) => string = (key) => key,
  now: () => number = Date.now,
): RateLimiter {
  const window = rateWindow(rule);
  const windowMs = window.duration * 1000;
  const most = Math.max(1, Math.floor(window.points * mostShare));
  const holdMs = windowMs * holdShare;
  const memoryMs = windowMs / 2;
  const reservations = new Map<string, Reservation>();
  let sweepAt = now() + windowMs;

  /** Keys not taken for a window and with nothing in flight are forgotten, once a window. */
  const sweep = (at: number) => {
    if (at < sweepAt) return;
    sweepAt = at + windowMs;
    for (const [key, held] of reservations) {
      if (!held.refill && held.waiting === 0 && held.lastTakeAt < at - windowMs) reservations.delete(key);
    }
  };

  const add = (held: Reservation, points: number, until: number) => {
    if (points <= 0) return;
    // Points of the same window add up; a later window's replace what is left of an earlier one.
    if (held.left > 0 && held.until > now() && Math.abs(until - held.until) < windowMs / 2) {
      held.left += points;
      held.until = Math.min(held.until, until);
    } else {
      held.left = points;
      held.until = until;
    }
  };

  const refill = (key: string, held: Reservation, wanted: number): Promise<Outcome> => {
    const points = Math.max(1, Math.min(wanted, most - held.left));
    const call = (async (): Promise<Outcome> => {
      // The store's window ends no sooner after the call was sent than it says.
      const sentAt = now();
      sweep(sentAt);
      try {
        const count = windowCountOf(await store.consume(storeKey(key), points));
        if (count) add(held, points, sentAt + count.msBeforeNext);
        return { refused: false };
      } catch (answer) {
        const count = windowCountOf(answer);
        if (!count) return { failed: answer };
        // Counted past the window's points: those the window had left before ours are ours.
        if (count.consumedPoints > window.points)
          add(held, points - (count.consumedPoints - window.points), sentAt + count.msBeforeNext);
        return { refused: true, retryAfterMs: Math.max(1, count.msBeforeNext) };
      } finally {
        held.refill = null;
      }
    })();
    held.refill = call;
    return call;
  };

  return {
    async take(key) {
      const at = now();
      let held = reservations.get(key);
      if (!held)
        reservations.set(key, (held = { left: 0, until: 0, refill: null, waiting: 0, rate: 0, lastTakeAt: at }));
      held.rate = held.rate * Math.exp((held.lastTakeAt - at) / memoryMs) + 1 / memoryMs;
      held.lastTakeAt = at;
      for (;;) {
        // What the key is expected to take here while a reservation lasts, or until the window ends
        // if that is sooner (a later window's points cannot be had yet), and what to hold for it.
        const windowLeft = held.until > now() ? held.until - now() : windowMs;
        const expected = held.rate * Math.min(holdMs, windowLeft);
        const size = Math.min(most, Math.ceil(expected));
        if (held.left > 0 && held.until > now()) {
          held.left -= 1;
          // Taken steadily: the next reservation is asked for while a quarter of this one is left.
          if (!held.refill && expected >= 1 && held.left < Math.max(1, size / 4))
            void refill(key, held, size - held.left);
          return { allowed: true } satisfies RateDecision;
        }
        if (held.until <= now()) held.left = 0;
        held.waiting += 1;
        let outcome: Outcome;
        try {
          outcome = await (held.refill ?? refill(key, held, Math.max(size, held.waiting)));
        } finally {
          held.waiting -= 1;
        }
        if ('failed' in outcome) throw outcome.failed;
        if (outcome.refused && !(held.left > 0 && held.until > now()))
          return { allowed: false, retryAfterMs: outcome.retryAfterMs };
      }
    },
  };
}
