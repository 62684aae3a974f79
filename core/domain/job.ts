/** A job as a queue hands it to its handler. */
export interface QueuedJob {
  id: string;
  kind: string;
  payload: unknown;
  /** Runs so far, this one included. */
  attempts: number;
  /**
   * Earlier runs that failed: those that threw (except for an outage: `PostponeJob`, an unavailable
   * database) and those whose worker lost the lease (died, or hung). What a handler counts its
   * retries by, so an outage does not use them up.
   */
  failures: number;
}
