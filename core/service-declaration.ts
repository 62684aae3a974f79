import type { Config } from '../config/schema.ts';
import type { ReportingJobHandler } from './metrics/job-outcome.ts';
import type { DomainCounter } from './metrics/jobs.ts';

/**
 * The worker lanes, each with slots of its own, so a backlog in one never holds the other back:
 * renders and the clean-up after them, and webhook deliveries (events are never late behind renders).
 */
export const workerLanes = {
  jobs: (config: Config) => config.workers.concurrency,
  deliveries: (config: Config) => config.webhooks.deliveryConcurrency,
};

/** A job kind a service handles: the service is the kind's handler. */
export interface JobWiring {
  kind: string;
  lane: keyof typeof workerLanes;
  /** The domain metric its runs count in as well, by the outcome the handler reports. */
  counts?: DomainCounter;
}

/** A periodic task a service is: the scheduler runs it every `intervalMs`. */
export interface ScheduleWiring {
  /** The task's name; a run once per cluster is claimed in the database under it. */
  name: string;
  intervalMs: (config: Config) => number;
  /** Sweeps of shared data run once per interval in the whole cluster; a process's own chores in each. */
  oncePerCluster: boolean;
}

export interface ServiceDeclaration<Deps = never, Service = unknown> {
  /** Called once with the container (awilix's proxy injection): its parameter type names what the service needs. */
  factory: (deps: Deps) => Service;
  job?: JobWiring;
  schedule?: ScheduleWiring;
}

/**
 * Declares a service: its factory and, when the service is a job handler or a periodic task, the
 * kind it handles or its schedule. A job needs a handler and a schedule a task, so the types refuse
 * either on a service of another shape.
 */
export function service<Deps, Service>(
  factory: (deps: Deps) => Service,
  wiring: {
    job?: Service extends ReportingJobHandler ? JobWiring : never;
    schedule?: Service extends () => Promise<unknown> ? ScheduleWiring : never;
  } = {},
): ServiceDeclaration<Deps, Service> {
  return { factory, ...wiring };
}
