import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { threadId } from 'node:worker_threads';
import type { Logger, ScheduledTask, Scheduler } from '../plugin.ts';
import { waitFor } from './wait-for.ts';

/** A hung test (say, a stop() that never resolves) fails after this instead of stalling the run. */
const testTimeout = { timeout: 60_000 };

interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  fields: Record<string, unknown>;
}

function recordingLogger(): Logger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const log =
    (level: LogLine['level']) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      lines.push({ level, message, fields });
    };
  return { lines, info: log('info'), warn: log('warn'), error: log('error') };
}

/** A task that records when each run starts and ends, and how many of its runs overlap. */
function countingTask(name: string, intervalMs: number, body: () => Promise<void> = async () => {}) {
  const task = {
    name,
    intervalMs,
    starts: [] as number[],
    ends: [] as number[],
    active: 0,
    maxActive: 0,
    async run() {
      task.starts.push(Date.now());
      task.active += 1;
      task.maxActive = Math.max(task.maxActive, task.active);
      try {
        await body();
      } finally {
        task.active -= 1;
        task.ends.push(Date.now());
      }
    },
  };
  return task satisfies ScheduledTask;
}

export interface SchedulerContractOptions<S extends Scheduler = Scheduler> {
  name: string;
  /** A new scheduler, which must report task failures to `logger`. Each test makes its own. */
  create(context: { logger: Logger }): S | Promise<S>;
  /** Called for every scheduler made, after the test has stopped it. */
  dispose?(scheduler: S): void | Promise<void>;
}

/** The scheduler contract: in-process periodic tasks that never overlap themselves, and a stop that waits. */
export function schedulerContract<S extends Scheduler>(options: SchedulerContractOptions<S>) {
  describe(`scheduler contract: ${options.name}`, () => {
    const made: S[] = [];
    const createScheduler = async (logger: Logger) => {
      const scheduler = await options.create({ logger });
      made.push(scheduler);
      return scheduler;
    };
    async function start(tasks: ScheduledTask[], logger: Logger = recordingLogger()): Promise<S> {
      const scheduler = await createScheduler(logger);
      await scheduler.start(tasks);
      return scheduler;
    }
    afterEach(async () => {
      for (const scheduler of made.splice(0)) {
        await scheduler.stop();
        await options.dispose?.(scheduler);
      }
    });

    it('runs a task repeatedly, about every intervalMs', testTimeout, async () => {
      const task = countingTask('sweep', 100);
      const startedAt = Date.now();
      await start([task]);
      // Generous: a loaded host stalls timers for a second or more, which only ever makes runs late.
      await waitFor('5 runs', () => task.starts.length >= 5, 10_000);
      const elapsed = Date.now() - startedAt;
      assert.ok(elapsed <= 10_000, `5 runs at 100 ms took ${elapsed} ms`);
      const first = task.starts[0]!;
      const fifth = task.starts[4]!;
      assert.ok(
        fifth - first >= 4 * 100 * 0.7,
        `runs come about every 100 ms, not faster (4 gaps took ${fifth - first} ms)`,
      );
    });

    it('runs several tasks, each at its own interval', testTimeout, async () => {
      const fast = countingTask('fast', 100);
      const slow = countingTask('slow', 1_000);
      await start([fast, slow]);
      await waitFor('3 runs of the slow task', () => slow.starts.length >= 3);
      // Ten times apart, and counted over a while: on a loaded host a stalled event loop, or a tick
      // that costs hundreds of milliseconds (Bree starts a worker thread for each), delays the fast
      // task far past 100 ms, but a scheduler that keeps each task's own interval still runs it more often.
      await waitFor(
        'the fast task to have run more often than the slow one',
        () => fast.starts.length >= slow.starts.length + 3,
        10_000,
      );
      const slowGaps = slow.starts.slice(1).map((at, i) => at - slow.starts[i]!);
      for (const gap of slowGaps) assert.ok(gap >= 1_000 * 0.7, `the slow task ran ${gap} ms after its previous run`);
    });

    it('never overlaps a task with itself: a tick during a run is skipped', testTimeout, async () => {
      const task = countingTask('slow-sweep', 100, () => sleep(500));
      await start([task]);
      await waitFor('3 finished runs', () => task.ends.length >= 3);
      assert.equal(task.maxActive, 1, 'at most one run at a time');
      // Skipped ticks are dropped, not queued: each run starts after the previous one ended.
      for (let i = 1; i < task.starts.length; i++)
        assert.ok(task.starts[i]! >= task.ends[i - 1]!, `run ${i + 1} started before run ${i} ended`);
    });

    it(
      'logs a task that throws and runs it again at its next tick, without stopping other tasks',
      testTimeout,
      async () => {
        const logger = recordingLogger();
        const failing = countingTask('failing', 100, async () => {
          throw new Error('sweep exploded');
        });
        const healthy = countingTask('healthy', 100);
        await start([failing, healthy], logger);
        await waitFor('3 runs of the failing task', () => failing.starts.length >= 3);
        const errors = logger.lines.filter(
          (line) => line.level === 'error' && JSON.stringify(line).includes('sweep exploded'),
        );
        assert.ok(
          errors.length >= 2,
          `each failure is logged (${errors.length} error lines for ${failing.starts.length} runs)`,
        );
        assert.ok(
          errors.every((line) => JSON.stringify(line.fields).includes('failing')),
          'the log names the task',
        );
        const healthyRuns = healthy.starts.length;
        await waitFor('the healthy task to keep running', () => healthy.starts.length >= healthyRuns + 2);
      },
    );

    it('runs tasks in this process and thread, where they share its memory', testTimeout, async () => {
      const shared = { pool: 'the main pool', touched: 0 };
      const seen: { threadId: number; pid: number; pool: string }[] = [];
      await start([
        {
          name: 'in-process',
          intervalMs: 50,
          async run() {
            shared.touched += 1;
            seen.push({ threadId, pid: process.pid, pool: shared.pool });
          },
        },
      ]);
      await waitFor('2 runs', () => shared.touched >= 2);
      assert.equal(threadId, 0, 'this test runs on the main thread');
      for (const run of seen) assert.deepEqual(run, { threadId, pid: process.pid, pool: 'the main pool' });
    });

    it('stop() waits for a running task, and no run starts afterwards', testTimeout, async () => {
      const slow = countingTask('long-run', 50, () => sleep(300));
      // A frequent task, so a tick is likely to be on its way when stop() is called.
      const frequent = countingTask('frequent', 20);
      const scheduler = await start([slow, frequent]);
      await waitFor('the slow task to be running', () => slow.active === 1 && frequent.starts.length >= 2);
      await scheduler.stop();
      assert.equal(slow.active, 0, 'stop() resolved only after the running task finished');
      assert.equal(slow.starts.length, slow.ends.length);
      assert.equal(frequent.active, 0);
      const counts = [slow.starts.length, frequent.starts.length];
      await sleep(400);
      assert.deepEqual([slow.starts.length, frequent.starts.length], counts, 'nothing ran after stop()');
      await scheduler.stop();
    });

    it('stop() before start() and a second stop() resolve', testTimeout, async () => {
      const idle = await createScheduler(recordingLogger());
      await idle.stop();
      await idle.stop();
    });
  });
}
