import { fileURLToPath } from 'node:url';
import Bree from 'bree';
import type { Logger, ScheduledTask, Scheduler } from '../../kit/plugin.ts';

/**
 * The one job file every task shares. Bree runs jobs in worker threads, which tsx does not reach
 * and which would not have this process's database pool anyway, so the job is a plain-JS file that
 * only reports "task X is due"; the task itself runs here, on the main thread.
 */
const tickFile = fileURLToPath(new URL('./tick.js', import.meta.url));

/** Bree reserves the job names 'index', 'index.js' and 'index.mjs'; a prefix leaves every task name free. */
const jobName = (taskName: string) => `task:${taskName}`;

export interface BreeSchedulerOptions {
  logger: Logger;
}

/**
 * The scheduler port on Bree: Bree decides when (one interval job per task), the task runs in
 * this process when the tick's worker reports in. A task still running when its next tick comes
 * skips that tick.
 */
export function createBreeScheduler({ logger }: BreeSchedulerOptions): Scheduler {
  let bree: Bree | undefined;
  let stopping: Promise<void> | undefined;
  /** Tasks by their Bree job name (see `jobName`). */
  const tasks = new Map<string, ScheduledTask>();
  const running = new Map<string, Promise<void>>();

  function runTask(task: ScheduledTask): void {
    // The previous run is still going: skip this tick (the port forbids overlap).
    if (running.has(task.name)) return;
    const run = (async () => {
      try {
        await task.run();
      } catch (error) {
        logger.error('scheduled task failed', {
          task: task.name,
          error: error instanceof Error ? error.stack : String(error),
        });
      } finally {
        running.delete(task.name);
      }
    })();
    running.set(task.name, run);
  }

  return {
    async start(list) {
      if (bree || stopping) throw new Error('The scheduler was already started.');
      const names = new Set<string>();
      for (const task of list) {
        if (names.has(task.name)) throw new Error(`Scheduled task '${task.name}' is listed twice.`);
        if (!Number.isFinite(task.intervalMs) || task.intervalMs <= 0) {
          throw new Error(`Scheduled task '${task.name}' needs an intervalMs above 0, not ${task.intervalMs}.`);
        }
        names.add(task.name);
      }
      for (const task of list) tasks.set(jobName(task.name), task);
      bree = new Bree({
        // Every job names its file by absolute path; there is no jobs folder to look for.
        root: false,
        doRootCheck: false,
        // Bree's own lines ("worker online", "exited with code 0" …) are noise; failures reach us through errorHandler.
        logger: false,
        outputWorkerMetadata: false,
        // No kill timer for tick workers (they end in milliseconds): Bree arms it on the worker's
        // 'online' event, which can come after 'done', and a timer armed then is never cleared, so
        // it held the process open for its full length after stop() in about 1 run in 5.
        closeWorkerAfterMs: 0,
        // The tick worker needs none of our flags: `--import tsx` would only slow its start.
        worker: { execArgv: [] },
        errorHandler(error, { name }) {
          logger.error('scheduler tick failed', {
            task: tasks.get(name)?.name ?? name,
            error: error instanceof Error ? error.message : String(error),
          });
        },
        workerMessageHandler({ name, message }) {
          // The job's name says which task; the message just says its tick is due ('done' follows it).
          if (stopping || typeof message !== 'object' || message === null) return;
          const task = tasks.get(name);
          if (task) runTask(task);
        },
        jobs: [...tasks].map(([name, task]) => ({
          name,
          path: tickFile,
          interval: task.intervalMs,
          // eval: false keeps Bree from taking a path with characters such as '+' or '#' for code to eval.
          worker: { eval: false, workerData: { task: task.name } },
        })),
      });
      try {
        await bree.start();
      } catch (error) {
        // Bree refused a job: leave nothing half-started for stop().
        bree = undefined;
        tasks.clear();
        throw error;
      }
    },

    stop() {
      stopping ??= (async () => {
        // No tick is acted on from here on; Bree clears its timers and waits for tick workers in flight.
        await bree?.stop();
        await Promise.all(running.values());
      })();
      return stopping;
    },
  };
}
