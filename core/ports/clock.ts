/**
 * Clock port. Everything that stamps or compares time asks the clock, never `Date.now()`,
 * so tests can move time (attribution windows, retry schedules, lease expiry). Adapter: `system`.
 * The guarantees an adapter gives are on `Clock` (what an editor shows on hover).
 */

/**
 * Tells the time.
 *
 * An adapter must guarantee:
 * - `now()` is whole milliseconds since the Unix epoch, a valid ISO 8601 timestamp when formatted.
 * - It never goes backwards from one reading to the next, in one process.
 * - A real clock (not a test's) agrees with the system clock and advances with real time.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}
