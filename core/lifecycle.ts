import type { AwilixContainer } from 'awilix';
import { services, type Cradle } from './cradle.ts';
import { instrumentHandlers } from './metrics/jobs.ts';
import type { ReportingJobHandler } from './metrics/job-outcome.ts';
import type { ScheduledTask } from './ports/scheduler.ts';
import { workerLanes, type JobWiring, type ScheduleWiring, type ServiceDeclaration } from './service-declaration.ts';
import { oncePerCluster } from './services/cluster-schedule.ts';

type ServiceName = keyof typeof services;
const declarations = Object.entries(services) as Array<[ServiceName, ServiceDeclaration<never>]>;
/** Each job kind with the service that handles it, as the declarations say. */
const jobs = declarations.flatMap(
  ([name, { job }]): Array<JobWiring & { service: ServiceName }> => (job ? [{ ...job, service: name }] : []),
);
/** Each schedule with the service that is its task. */
const schedules = declarations.flatMap(
  ([name, { schedule }]): Array<ScheduleWiring & { service: ServiceName }> =>
    schedule ? [{ ...schedule, service: name }] : [],
);

/**
 * Readies the queue for every declared job kind before this process reports ready (its HTTP
 * server listens, its workers claim): a first burst of requests, each holding a pooled connection
 * in its transaction, then enqueues without waiting for a connection of its own.
 */
export async function prepareQueue(cradle: Cradle): Promise<void> {
  await cradle.queue.prepare(jobs.map(({ kind }) => kind));
}

/**
 * Starts this process's workers (none when `workers.concurrency` is 0): one per lane, each
 * running the job kinds declared in it (see core/cradle.ts), every run counted and timed by kind
 * and outcome (see instrumentHandlers).
 */
export async function startWorkers(cradle: Cradle): Promise<number> {
  const { concurrency } = cradle.config.workers;
  if (concurrency === 0) return 0;
  const isUnavailable = (error: unknown) => cradle.persistence.isUnavailable(error);
  for (const [lane, concurrencyOf] of Object.entries(workerLanes)) {
    const inLane = jobs.filter((job) => job.lane === lane);
    const handlers = Object.fromEntries(
      inLane.map(({ kind, service }) => [kind, cradle[service] as ReportingJobHandler]),
    );
    const counters = Object.fromEntries(inLane.flatMap(({ kind, counts }) => (counts ? [[kind, counts]] : [])));
    await cradle.queue.work(
      instrumentHandlers(handlers, { metrics: cradle.metrics, logger: cradle.logger, isUnavailable, counters }),
      { concurrency: concurrencyOf(cradle.config) },
    );
  }
  return concurrency;
}

/**
 * Starts the declared schedules (see core/cradle.ts). Every process with workers runs the
 * scheduler; the sweeps of shared data run once per interval in the whole cluster
 * (oncePerCluster), waking this process's own idle workers runs in each.
 */
export async function startScheduler(cradle: Cradle): Promise<void> {
  const tasks = schedules.map(({ name, intervalMs, oncePerCluster: clusterWide, service }): ScheduledTask => {
    const run = cradle[service] as () => Promise<unknown>;
    const task = { name, intervalMs: intervalMs(cradle.config), run: async () => void (await run()) };
    return clusterWide ? oncePerCluster(cradle.queue, task) : task;
  });
  await cradle.scheduler.start(tasks);
}

/**
 * Stops in dependency order: workers finish their jobs while the database is still open, then
 * the container disposes the rest (see createKernel). Jobs still running after
 * `shutdownTimeoutMs` are aborted and released to other workers.
 */
export async function shutdown(container: AwilixContainer<Cradle>): Promise<void> {
  await container.cradle.scheduler.stop();
  await container.cradle.queue.stop(container.cradle.config.shutdownTimeoutMs);
  await container.dispose();
}
