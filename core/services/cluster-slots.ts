import type { QueuedJob } from '../domain/job.ts';
import type { Logger } from '../logger.ts';
import { outageRetryDelay, PostponeJob } from '../ports/job-queue.ts';
import type { ConcurrencyCap, Slot } from '../ports/limits.ts';

/**
 * How long a slot stays held without renewal: a process that died holding one frees it after this
 * at the latest (the live processes free it sooner, once the process registry finds it gone).
 */
export const slotLeaseMs = 30_000;

/** ±50 %, so jobs that found the cap full do not all come back at the same moment. */
export const jittered = (delayMs: number) => Math.round(delayMs * (0.5 + Math.random()));

/** The longest a job that found a cap full waits before looking again (unless its first wait is longer). */
export const busyWaitMaxMs = 4_000;

/**
 * How long a job that found a cap full waits before looking again: `waitMs` after its first run,
 * doubling with each earlier run of it that was postponed (one that was not a failure: a run that
 * finishes ends the job), up to four times `waitMs` and at most busyWaitMaxMs; jittered. Work
 * queued behind a busy cap, or behind slots a dead process still holds, then looks a few times
 * rather than once a second, and still comes back within a few seconds of a slot freeing.
 */
export function busyWait(job: Pick<QueuedJob, 'attempts' | 'failures'>, waitMs: number): number {
  const postponed = Math.max(0, job.attempts - 1 - job.failures);
  const ceiling = Math.max(waitMs, Math.min(busyWaitMaxMs, 4 * waitMs));
  return jittered(Math.min(ceiling, waitMs * 2 ** postponed));
}

/**
 * Takes a slot of a cluster-wide cap for a job's work, renewed every third of its lease until
 * released. With every slot taken, the job is postponed (busyWait, from `waitMs` up): it waits in
 * the queue, not in a worker, and the run is not one of its failures. A limits store that cannot
 * be reached postpones it too, backing off as for our other outages.
 */
export async function slotOrPostpone(
  cap: ConcurrencyCap,
  key: string,
  job: Pick<QueuedJob, 'attempts' | 'failures'>,
  { waitMs, what, logger }: { waitMs: number; what: string; logger: Logger },
): Promise<{ release(): Promise<void> }> {
  let slot: Slot | null;
  try {
    slot = await cap.tryAcquire(key);
  } catch (error) {
    logger.warn(`${what} postponed: the limits store failed`, {
      error: error instanceof Error ? error.message : String(error),
    });
    throw new PostponeJob(outageRetryDelay(job.attempts), `${what}: the limits store failed`);
  }
  if (!slot) throw new PostponeJob(busyWait(job, waitMs), `${what}: every slot is in use`);
  return heldSlot(slot, key, { what, logger });
}

/** A slot taken, renewed every third of its lease until released. */
export function heldSlot(
  held: Slot,
  key: string,
  { what, logger }: { what: string; logger: Logger },
): { release(): Promise<void> } {
  const renewal = setInterval(() => {
    held.renew().then(
      (kept) => kept || logger.warn(`${what}: its slot expired while held`, { key }),
      () => {},
    );
  }, slotLeaseMs / 3);
  renewal.unref();
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      clearInterval(renewal);
      // A slot that cannot be given back now expires with its lease.
      await held.release().catch(() => {});
    },
  };
}
