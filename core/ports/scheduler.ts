/**
 * Scheduler port: runs periodic sweeps (due webhook work, endpoint auto-disable, expired secrets).
 * Adapter: `bree`.
 * The guarantees an adapter gives are on `Scheduler` (what an editor shows on hover).
 */
export interface ScheduledTask {
  name: string;
  intervalMs: number;
  run(): Promise<void>;
}

/**
 * Runs periodic sweeps in this process.
 *
 * An adapter must guarantee:
 * - Each task runs in this process (it needs the process's database pool and container), about
 *   every `intervalMs`, and never overlaps itself: a tick that comes while the previous run of
 *   the same task is still going is skipped.
 * - A task that throws is logged and runs again at its next tick; it never stops the scheduler.
 * - `stop()` stops ticking and resolves once running tasks have finished.
 */
export interface Scheduler {
  start(tasks: ScheduledTask[]): Promise<void>;
  stop(): Promise<void>;
}
