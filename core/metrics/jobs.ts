import { childLogger, type Logger } from '../logger.ts';
import { PostponeJob, RetryJob, type JobHandler } from '../ports/job-queue.ts';
import type { ReportingJobHandler } from './job-outcome.ts';
import type { Metrics } from './registry.ts';

/** A kind whose runs also count in a domain metric, by the outcome its handler reports. */
export interface DomainCounter {
  count: (metrics: Metrics) => { total: Metrics['renders']; duration: Metrics['renderDuration'] };
  /** The outcome of a run that resolved without reporting one (nothing left to do). */
  silent: string;
}

/**
 * Wraps each handler so that its runs are counted and timed by outcome, as the queue reads them:
 * resolved is `completed`; `RetryJob` is `retried`; `PostponeJob` (an outage of ours, or a
 * cap with every slot taken) or a database outage is `postponed`; a run a stopping worker took back is `released`; anything else is `failed` (the
 * queue retries it, or gives the job up after its last attempt). A kind in `counters` (renders,
 * deliveries) also counts in its own metric, by the outcome its handler resolved with. Each run's
 * context gets a logger whose lines carry the job's id and kind.
 */
export function instrumentHandlers(
  handlers: Record<string, ReportingJobHandler>,
  {
    metrics,
    logger,
    isUnavailable,
    counters = {},
  }: {
    metrics: Metrics;
    logger: Logger;
    isUnavailable: (error: unknown) => boolean;
    counters?: Record<string, DomainCounter>;
  },
): Record<string, JobHandler> {
  const wrap = (kind: string, handler: ReportingJobHandler): JobHandler => {
    const counter = counters[kind];
    return (job, context) => {
      const started = performance.now();
      const record = (outcome: string, domainOutcome: string | undefined) => {
        const seconds = (performance.now() - started) / 1000;
        metrics.jobRuns.inc({ kind, outcome });
        metrics.jobDuration.observe({ kind, outcome }, seconds);
        if (!counter) return;
        const { total, duration } = counter.count(metrics);
        const label = domainOutcome ?? counter.silent;
        total.inc({ outcome: label });
        duration.observe({ outcome: label }, seconds);
      };
      return handler(job, { ...context, logger: childLogger(logger, { jobId: job.id, jobKind: kind }) }).then(
        (outcome) => record('completed', outcome ?? undefined),
        (error: unknown) => {
          if (context.signal.aborted) record('released', 'released');
          else if (error instanceof PostponeJob || (!(error instanceof RetryJob) && isUnavailable(error)))
            record('postponed', 'postponed');
          else if (error instanceof RetryJob) record('retried', 'retried');
          else record('failed', 'error');
          throw error;
        },
      );
    };
  };
  return Object.fromEntries(Object.entries(handlers).map(([kind, handler]) => [kind, wrap(kind, handler)]));
}
