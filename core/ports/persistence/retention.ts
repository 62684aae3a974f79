/**
 * Deletes what has outlived its retention window, one bounded batch per call. Each call is meant
 * to be its own short transaction (`persistence.transaction`), so pruning never holds locks long;
 * the caller loops while a call returns a full batch.
 */
export interface RetentionRepository {
  /**
   * Deletes up to `limit` of the oldest events created before `before`, with their deliveries and
   * those deliveries' attempts. An event with a delivery still pending (being retried) is kept, with
   * everything of it, until that delivery ends. Resolves to the number of events deleted.
   */
  pruneEvents(before: number, limit: number): Promise<number>;
  /** Deletes up to `limit` idempotency keys created before `before`; resolves to how many. */
  pruneIdempotencyKeys(before: number, limit: number): Promise<number>;
}
