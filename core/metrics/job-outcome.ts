import type { QueuedJob } from '../domain/job.ts';
import type { Logger } from '../logger.ts';
import type { JobContext } from '../ports/job-queue.ts';

/** What a handler says its run came to, where the queue cannot tell (a render's generation failed, a delivery delivered). */
export type ReportedOutcome = 'completed' | 'failed' | 'delivered' | 'retried' | 'abandoned';

/** The queue's context of a run, with a logger whose every line names the job (its id and kind). */
export interface JobRunContext extends JobContext {
  logger: Logger;
}

/**
 * A job kind's handler as the core writes it: it resolves with what its run came to where the
 * queue cannot tell, or with nothing. Called outside the queue (a test), it may get no context.
 */
export type ReportingJobHandler = (job: QueuedJob, context: JobRunContext) => Promise<ReportedOutcome | void>;
