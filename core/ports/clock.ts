/**
 * Clock port. Everything that stamps or compares time asks the clock, never `Date.now()`,
 * so tests can move time (attribution windows, retry schedules, lease expiry).
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}
