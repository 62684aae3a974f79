import type { Logger } from '../logger.ts';
import type { Clock } from '../ports/clock.ts';
import type { IdGenerator } from '../ports/ids.ts';
import type { JobQueue } from '../ports/job-queue.ts';
import type { ProcessRecord, ProcessRole } from '../ports/queue-tables/index.ts';

/** How often a running process refreshes its row. */
export const heartbeatIntervalMs = 10_000;
/** A process not seen for this long is presumed gone (three missed heartbeats). */
export const liveWindowMs = 3 * heartbeatIntervalMs;
/** Rows of processes gone this long are deleted by the next process that starts. */
const forgetAfterMs = 24 * 60 * 60_000;

export interface RegisteredProcess {
  readonly record: ProcessRecord;
  /** Processes seen within the live window, this one included. */
  live(): Promise<ProcessRecord[]>;
  /** Stops the heartbeat and removes the row (a stopping process is gone at once for the others). */
  stop(): Promise<void>;
}

/**
 * Registers this process in the database's process registry (kept by the queue plugin) and keeps its row fresh, so other
 * processes starting against the same database see it (topology checks). The clocks of
 * different hosts are compared: the live window is wide enough for a few seconds of skew.
 */
export async function registerProcess(
  { queue, ids, clock, logger }: { queue: JobQueue; ids: IdGenerator; clock: Clock; logger: Logger },
  {
    role,
    hostname,
    pid,
    details,
  }: { role: ProcessRole; hostname: string; pid: number; details: Record<string, unknown> },
): Promise<RegisteredProcess> {
  const now = clock.now();
  const record: ProcessRecord = { id: ids.id('proc_'), hostname, role, pid, startedAt: now, seenAt: now, details };
  await queue.processes.pruneSeenBefore(now - forgetAfterMs);
  await queue.processes.register(record);
  const beat = async () => {
    try {
      // A row pruned while this process could not reach the database comes back.
      if (!(await queue.processes.heartbeat(record.id, clock.now())))
        await queue.processes.register({ ...record, seenAt: clock.now() });
    } catch (error) {
      logger.warn('process registry heartbeat failed; retrying at the next one', { error: String(error) });
    }
  };
  const timer = setInterval(() => void beat(), heartbeatIntervalMs);
  timer.unref();
  return {
    record,
    live: () => queue.processes.listSeenSince(clock.now() - liveWindowMs),
    async stop() {
      clearInterval(timer);
      await queue.processes.remove(record.id).catch(() => {});
    },
  };
}
