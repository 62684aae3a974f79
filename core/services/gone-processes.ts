import { readlinkSync } from 'node:fs';
import type { Logger } from '../logger.ts';
import type { Clock } from '../ports/clock.ts';
import type { JobQueue } from '../ports/job-queue.ts';
import type { Limits } from '../ports/limits.ts';
import type { ProcessRecord } from '../ports/queue-tables/index.ts';

/**
 * This process's pid namespace (`pid:[4026531836]` on Linux), or null where none can be read. Two
 * processes compare pids only within one namespace: containers may share a host name but not pids.
 */
export function pidNamespace(): string | null {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return null;
  }
}

/** Whether a process with this pid exists on this host (one of another user's counts: EPERM). */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

export interface Vantage {
  /** This process's own row, never presumed gone. */
  self: ProcessRecord;
  now: number;
  liveWindowMs: number;
  pidExists(pid: number): boolean;
}

/**
 * The registered processes presumed gone: those not seen within the live window, and those on
 * this host (the same host name and pid namespace) whose pid no longer exists, which answers at
 * once for a process killed with SIGKILL. A pid that exists may be a new process's: that one is
 * left to the live window.
 */
export function goneProcesses(records: ProcessRecord[], { self, now, liveWindowMs, pidExists }: Vantage) {
  const here = (record: ProcessRecord) =>
    record.hostname === self.hostname && record.details.pidNamespace === self.details.pidNamespace;
  return records.filter(
    (record) =>
      record.id !== self.id &&
      (record.seenAt < now - liveWindowMs || (here(record) && record.pid > 0 && !pidExists(record.pid))),
  );
}

/**
 * Frees the limits slots of every registered process that is gone (their `limitsInstance`) and
 * deletes its row, so work waiting on a cap does not wait out the leases of a dead process's
 * slots. A failure leaves the row for the next sweep; a gone process that is in fact alive (a
 * database outage kept it from its heartbeat) registers again, having lost its slots.
 */
export async function sweepGoneProcesses(
  { queue, limits, clock, logger }: { queue: JobQueue; limits: Limits; clock: Clock; logger: Logger },
  vantage: Omit<Vantage, 'now' | 'pidExists'> & Partial<Pick<Vantage, 'pidExists'>>,
): Promise<ProcessRecord[]> {
  const records = await queue.processes.listSeenSince(0);
  const gone = goneProcesses(records, { pidExists, ...vantage, now: clock.now() });
  for (const record of gone) {
    const instance = record.details.limitsInstance;
    const freed =
      typeof instance === 'string' && instance !== limits.instance ? await limits.releaseInstance(instance) : 0;
    await queue.processes.remove(record.id);
    logger.info('process gone: its registration removed and its slots freed', {
      process: record.id,
      role: record.role,
      hostname: record.hostname,
      pid: record.pid,
      slots: freed,
    });
  }
  return gone;
}
