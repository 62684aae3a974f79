import type { Logger } from '../logger.ts';
import { outageRetryDelay, PostponeJob } from '../ports/job-queue.ts';
import type { ConcurrencyCap, Slot } from '../ports/limits.ts';

/** How long a slot stays held without renewal: a process that died holding one frees it after this. */
export const slotLeaseMs = 30_000;

/** ±50 %, so jobs that found the cap full do not all come back at the same moment. */
export const jittered = (delayMs: number) => Math.round(delayMs * (0.5 + Math.random()));

/**
 * Takes a slot of a cluster-wide cap for a job's work, renewed every third of its lease until
 * released. With every slot taken, the job is postponed by about `waitMs`: it waits in the queue,
 * not in a worker, and the run is not one of its failures. A limits store that cannot be reached
 * postpones it too, backing off as for our other outages.
 */
export async function slotOrPostpone(
  cap: ConcurrencyCap,
  key: string,
  job: { attempts: number },
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
  if (!slot) throw new PostponeJob(jittered(waitMs), `${what}: every slot is in use`);
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
