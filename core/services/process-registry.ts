import type { Logger } from '../logger.ts';
import type { Clock } from '../ports/clock.ts';
import type { IdGenerator } from '../ports/ids.ts';
import type { JobQueue } from '../ports/job-queue.ts';
import type { Limits } from '../ports/limits.ts';
import type { ProcessRecord, ProcessRole } from '../ports/queue-tables/index.ts';
import { pidNamespace, sweepGoneProcesses } from './gone-processes.ts';

/** How often a running process refreshes its row. */
export const heartbeatIntervalMs = 10_000;
/** A process not seen for this long is presumed gone (three missed heartbeats). */
export const liveWindowMs = 3 * heartbeatIntervalMs;
/**
 * How often each process looks for processes that are gone, to free their limits slots: a SIGKILLed
 * process on the same host is found by its pid at the next look, well within a slot's lease.
 */
export const goneSweepIntervalMs = 5_000;
/** Rows of processes gone this long are deleted by the next process that starts (the sweep deletes the others). */
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
 * The row records the instance its limits adapter holds slots under; every process sweeps the
 * registry for processes that are gone, at start and every goneSweepIntervalMs, freeing their
 * slots (see sweepGoneProcesses).
 */
export async function registerProcess(
  {
    queue,
    ids,
    clock,
    logger,
    limits,
  }: { queue: JobQueue; ids: IdGenerator; clock: Clock; logger: Logger; limits: Limits },
  {
    role,
    hostname,
    pid,
    details,
  }: { role: ProcessRole; hostname: string; pid: number; details: Record<string, unknown> },
): Promise<RegisteredProcess> {
  const now = clock.now();
  const record: ProcessRecord = {
    id: ids.id('proc_'),
    hostname,
    role,
    pid,
    startedAt: now,
    seenAt: now,
    details: { ...details, limitsInstance: limits.instance, pidNamespace: pidNamespace() },
  };
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
  let sweeping: Promise<unknown> | undefined;
  let failing = false;
  const sweep = () => {
    // One sweep at a time: a slow database must not pile them up.
    sweeping ??= sweepGoneProcesses({ queue, limits, clock, logger }, { self: record, liveWindowMs })
      .then(
        () => (failing = false),
        (error: unknown) => {
          // Once per outage: the sweep runs every few seconds.
          if (!failing) logger.warn('sweep for gone processes failed; retrying', { error: String(error) });
          failing = true;
        },
      )
      .finally(() => (sweeping = undefined));
    return sweeping;
  };
  const sweeper = setInterval(() => void sweep(), goneSweepIntervalMs);
  sweeper.unref();
  void sweep();
  return {
    record,
    live: () => queue.processes.listSeenSince(clock.now() - liveWindowMs),
    async stop() {
      clearInterval(timer);
      clearInterval(sweeper);
      await sweeping;
      await queue.processes.remove(record.id).catch(() => {});
    },
  };
}
