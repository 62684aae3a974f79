import { AsyncLocalStorage } from 'node:async_hooks';

/** What a handler says its run came to, where the queue cannot tell (a render's generation failed, a delivery delivered). */
export type ReportedOutcome = 'completed' | 'failed' | 'delivered' | 'retried' | 'abandoned';

export interface JobRunReport {
  outcome?: ReportedOutcome;
}

const runs = new AsyncLocalStorage<JobRunReport>();

/** Records the outcome of the job run the caller is part of; outside a run (a test calling a handler), nothing. */
export function reportJobOutcome(outcome: ReportedOutcome): void {
  const run = runs.getStore();
  if (run) run.outcome = outcome;
}

/** Runs `work` as a job run whose handler may report its outcome into `report`. */
export const runReporting = <T>(report: JobRunReport, work: () => T): T => runs.run(report, work);
