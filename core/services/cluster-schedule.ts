import type { Persistence } from '../ports/persistence/index.ts';
import type { ScheduledTask } from '../ports/scheduler.ts';

/**
 * Makes a periodic task run once per interval in the whole cluster rather than in every process:
 * each tick first claims the task's run in the database (`schedules.claimRun`), and only the
 * process whose claim succeeds runs it. Every process can then run the scheduler safely.
 */
export function oncePerCluster(persistence: Persistence, task: ScheduledTask): ScheduledTask {
  return {
    ...task,
    async run() {
      if (await persistence.schedules.claimRun(task.name, task.intervalMs)) await task.run();
    },
  };
}
