import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { AwilixContainer } from 'awilix';
import { loadConfig } from '../config/load.ts';
import type { Cradle } from '../core/cradle.ts';
import { createKernel } from '../core/kernel.ts';
import { startScheduler, startWorkers } from '../core/lifecycle.ts';
import { silentLogger } from '../core/logger.ts';
import type { JobHandler } from '../core/ports/job-queue.ts';
import type { ScheduledTask } from '../core/ports/scheduler.ts';
import { builtinPlugins } from '../plugins/catalogue.ts';
import { parsePrometheus, samplesOf } from './support/prometheus.ts';

const root = path.resolve(import.meta.dirname, '..');

/**
 * Every job kind the core enqueues, read from its source: the constant each `queue.enqueue` names,
 * resolved to the string it exports. (The dead-letter retry re-enqueues a dead job's own kind.)
 */
function enqueuedKinds(): Set<string> {
  const sources = readdirSync(path.join(root, 'core'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => readFileSync(path.join(entry.parentPath, entry.name), 'utf8'));
  const constants = new Map(
    sources.flatMap((text) =>
      [...text.matchAll(/^export const (\w+) = '([^']+)';/gm)].map((match) => [match[1]!, match[2]!] as const),
    ),
  );
  const named = sources
    .flatMap((text) => [...text.matchAll(/\.enqueue\(\s*\w+,\s*\{\s*kind: ([\w.]+)/g)].map((match) => match[1]!))
    .filter((name) => name !== 'job.kind');
  return new Set(
    named.map(
      (name) => constants.get(name) ?? assert.fail(`enqueue names ${name}, which is no exported string constant`),
    ),
  );
}

describe('the wiring derived from the service declarations', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-wiring-'));
  let container: AwilixContainer<Cradle>;
  const lanes: Array<{ handlers: Record<string, JobHandler>; concurrency: number }> = [];
  const tasks: ScheduledTask[] = [];
  before(async () => {
    const config = loadConfig(
      { VISUALIZER_DATA_DIR: dataDir },
      { workers: { concurrency: 3 }, webhooks: { deliveryConcurrency: 5 } },
    );
    container = await createKernel(config, {
      catalogue: builtinPlugins,
      logger: silentLogger,
      cwd: import.meta.dirname,
    });
    await container.cradle.persistence.migrate();
    // Record what the lifecycle starts instead of starting it.
    const { queue, scheduler } = container.cradle;
    queue.work = async (handlers, { concurrency }) => void lanes.push({ handlers, concurrency });
    scheduler.start = async (started) => void tasks.push(...started);
    await startWorkers(container.cradle);
    await startScheduler(container.cradle);
  });
  after(async () => {
    await container.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('works every job kind the services enqueue, each in one lane, deliveries apart from renders', () => {
    const enqueued = enqueuedKinds();
    assert.ok(enqueued.size >= 5, `the source scan finds the enqueued kinds (${[...enqueued].join(', ')})`);
    const worked = lanes.flatMap(({ handlers }) => Object.keys(handlers));
    assert.deepEqual(new Set(worked).size, worked.length, 'no kind in two lanes');
    for (const kind of enqueued) assert.ok(worked.includes(kind), `a worker handles ${kind}`);
    assert.deepEqual(
      lanes.map(({ handlers, concurrency }) => ({
        concurrency,
        delivers: 'deliver_webhook' in handlers,
        renders: 'render_generation' in handlers,
      })),
      [
        { concurrency: 3, delivers: false, renders: true },
        { concurrency: 5, delivers: true, renders: false },
      ],
    );
  });

  it('counts and times the runs of every kind, and renders and deliveries in their own metrics', async () => {
    // Jobs that name nothing that exists: each handler finds nothing to do, or fails; either is a run.
    const payload = {
      generationId: 'agen_none',
      organizationId: 'org_none',
      generationIds: ['agen_none'],
      deliveryId: 'dlv_none',
      erasureId: 'ver_none',
    };
    for (const { handlers } of lanes) {
      for (const [kind, handle] of Object.entries(handlers)) {
        await handle(
          { id: `job_${kind}`, kind, payload, attempts: 1, failures: 0 },
          { signal: new AbortController().signal, completeIn: async () => {} },
        ).catch(() => {});
      }
    }
    const samples = parsePrometheus(await container.cradle.metrics.scrape());
    for (const kind of lanes.flatMap(({ handlers }) => Object.keys(handlers))) {
      assert.equal(samplesOf(samples, 'job_runs_total', { kind }).length, 1, `job_runs_total counts ${kind}`);
    }
    assert.equal(samplesOf(samples, 'renders_total').length, 1, 'renders_total counts the render');
    assert.equal(
      samplesOf(samples, 'webhook_deliveries_total').length,
      1,
      'webhook_deliveries_total counts the delivery',
    );
  });

  it('schedules every sweep under the name its cluster-wide claim is kept by, and each runs', async () => {
    assert.deepEqual(tasks.map(({ name }) => name).sort(), [
      'disable-failing-endpoints',
      'prune-retention',
      'sweep-uploads',
      'wake-due-jobs',
    ]);
    for (const task of tasks) await task.run();
  });
});
