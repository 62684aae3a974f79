import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { silentLogger } from '../core/logger.ts';
import breePlugin from '../plugins/scheduler-bree/index.ts';
import { createBreeScheduler } from '../plugins/scheduler-bree/bree-scheduler.ts';
import { schedulerContract } from 'visualizer/testing';
import { pluginContext } from '../kit/testing/plugin-context.ts';

schedulerContract({ name: 'bree', create: ({ logger }) => createBreeScheduler({ logger }) });

describe('bree scheduler', () => {
  it('takes any task name, including the job names Bree reserves', { timeout: 60_000 }, async () => {
    const ran = new Set<string>();
    const scheduler = createBreeScheduler({ logger: silentLogger });
    const names = ['index', 'index.js', 'webhooks: due deliveries'];
    await scheduler.start(names.map((name) => ({ name, intervalMs: 50, run: async () => void ran.add(name) })));
    const deadline = Date.now() + 20_000;
    while (ran.size < names.length && Date.now() < deadline) await sleep(10);
    await scheduler.stop();
    assert.deepEqual([...ran].sort(), [...names].sort());
  });

  it('refuses a task listed twice or an interval that is not above 0', async () => {
    const task = { name: 'sweep', intervalMs: 100, run: async () => {} };
    await assert.rejects(createBreeScheduler({ logger: silentLogger }).start([task, task]), /listed twice/);
    await assert.rejects(
      createBreeScheduler({ logger: silentLogger }).start([{ ...task, intervalMs: 0 }]),
      /intervalMs above 0/,
    );
  });

  it('registers as the scheduler plugin, and disposing it stops the scheduler', { timeout: 60_000 }, async () => {
    assert.deepEqual(breePlugin.provides, ['scheduler']);
    const { scheduler, dispose } = await breePlugin.register(pluginContext({}));
    let runs = 0;
    let active = false;
    await scheduler.start([
      {
        name: 'sweep',
        intervalMs: 30,
        run: async () => {
          active = true;
          runs += 1;
          await sleep(100);
          active = false;
        },
      },
    ]);
    const deadline = Date.now() + 20_000;
    while (!active && Date.now() < deadline) await sleep(5);
    await dispose!();
    assert.equal(active, false, 'dispose() waited for the running task');
    const after = runs;
    await sleep(200);
    assert.equal(runs, after, 'nothing ran after dispose()');
  });
});
