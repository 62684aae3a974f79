import type { JobQueue } from '../ports/job-queue.ts';
import type { ScheduledTask } from '../ports/scheduler.ts';

/**
 * Makes a periodic task run once per interval in the whole cluster rather than in every process:
 * each tick first claims the task's run in the database (`queue.claimScheduledRun`), and only the
 * process whose claim succeeds runs it. Every process can then run the scheduler safely.
 */
export function oncePerCluster(queue: Pick<JobQueue, 'claimScheduledRun'>, task: ScheduledTask): ScheduledTask {
  return {
    ...task,
    async run() {
      if (await queue.claimScheduledRun(task.name, task.intervalMs)) await task.run();
    },
  };
}
