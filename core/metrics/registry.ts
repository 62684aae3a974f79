import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Logger } from '../logger.ts';
import type { JobQueue } from '../ports/job-queue.ts';
import type { Persistence } from '../ports/persistence/index.ts';
import { processMetricsText } from './process.ts';

/** Seconds. HTTP answers take milliseconds; the top buckets catch uploads and slow clients. */
const httpBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Seconds. A job runs from milliseconds (a delivery) to minutes (a render on a busy engine). */
const jobBuckets = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300];

/**
 * The metrics of one container (one per process in production), in a registry of their own, so
 * tests that run several containers in one process never mix their counts. Gauges about the queue
 * and the database pool are read when scraped, not kept up to date.
 */
export interface Metrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route'>;
  readonly jobRuns: Counter<'kind' | 'outcome'>;
  readonly jobDuration: Histogram<'kind' | 'outcome'>;
  readonly renders: Counter<'outcome'>;
  readonly renderDuration: Histogram<'outcome'>;
  /** Calls to each render engine, by outcome: ok, transient (moved on), final, skipped (unsupported, circuit open, cap full). */
  readonly engineCalls: Counter<'engine' | 'outcome'>;
  readonly engineCallDuration: Histogram<'engine' | 'outcome'>;
  /** Adds what `render_engine_circuit_state` reads at each scrape: a value per engine (0 closed, 1 half-open, 2 open). */
  observeCircuits(read: () => Array<{ engine: string; value: number }>): void;
  readonly deliveries: Counter<'outcome'>;
  readonly deliveryDuration: Histogram<'outcome'>;
  /** The Prometheus text of this container and of the process (CPU, memory, event loop, GC). */
  scrape(): Promise<string>;
}

export const metricsContentType = Registry.PROMETHEUS_CONTENT_TYPE;

export function createMetrics({
  persistence,
  queue,
  logger,
}: {
  persistence: Persistence;
  queue: JobQueue;
  logger: Logger;
}): Metrics {
  const registry = new Registry();
  const registers = [registry];

  const queueGauges = {
    due: new Gauge({
      name: 'job_queue_due',
      help: "Jobs whose run time has come, waiting for a worker, by kind (the whole cluster's queue).",
      labelNames: ['kind'],
      registers,
    }),
    running: new Gauge({
      name: 'job_queue_running',
      help: 'Jobs a worker holds a live lease on, by kind.',
      labelNames: ['kind'],
      registers,
    }),
    scheduled: new Gauge({
      name: 'job_queue_scheduled',
      help: 'Jobs not due yet (retries, delayed deliveries), by kind.',
      labelNames: ['kind'],
      registers,
    }),
    lag: new Gauge({
      name: 'job_queue_lag_seconds',
      help: 'How long the oldest due job has waited past its run time, by kind; 0 when none is due.',
      labelNames: ['kind'],
      registers,
    }),
  };
  const pool = {
    total: new Gauge({
      name: 'db_pool_connections',
      help: 'Connections the database pool holds (idle or in use), by pool.',
      labelNames: ['pool'],
      registers,
    }),
    idle: new Gauge({
      name: 'db_pool_idle_connections',
      help: 'Idle connections in the database pool, by pool.',
      labelNames: ['pool'],
      registers,
    }),
    waiting: new Gauge({
      name: 'db_pool_waiting_requests',
      help: 'Queries waiting for a connection from the database pool, by pool.',
      labelNames: ['pool'],
      registers,
    }),
    max: new Gauge({
      name: 'db_pool_max_connections',
      help: 'The most connections the pool opens, by pool.',
      labelNames: ['pool'],
      registers,
    }),
  };

  const circuitReaders: Array<() => Array<{ engine: string; value: number }>> = [];
  new Gauge({
    name: 'render_engine_circuit_state',
    help: "Each render engine's circuit in this process: 0 closed, 1 half-open (one probe goes through), 2 open (the engine is passed over).",
    labelNames: ['engine'],
    registers,
    collect() {
      this.reset();
      for (const read of circuitReaders) for (const { engine, value } of read()) this.set({ engine }, value);
    },
  });

  /** Read once per scrape, before the registry renders; a database that does not answer leaves the queue gauges empty. */
  async function collect() {
    for (const gauge of Object.values(queueGauges)) gauge.reset();
    try {
      const stats = await queue.stats();
      for (const { kind, due, running, scheduled, lagMs } of stats) {
        queueGauges.due.set({ kind }, due);
        queueGauges.running.set({ kind }, running);
        queueGauges.scheduled.set({ kind }, scheduled);
        queueGauges.lag.set({ kind }, Math.max(0, lagMs) / 1000);
      }
    } catch (error) {
      logger.warn("metrics: reading the queue's depth failed", { error: String(error) });
    }
    for (const gauge of Object.values(pool)) gauge.reset();
    for (const { name, total, idle, waiting, max } of persistence.poolStats?.() ?? []) {
      pool.total.set({ pool: name }, total);
      pool.idle.set({ pool: name }, idle);
      pool.waiting.set({ pool: name }, waiting);
      pool.max.set({ pool: name }, max);
    }
  }

  return {
    registry,
    httpRequests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
    }),
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time to answer an HTTP request (until its response starts; a streamed body is not included), by method and route pattern.',
      labelNames: ['method', 'route'],
      buckets: httpBuckets,
      registers,
    }),
    jobRuns: new Counter({
      name: 'job_runs_total',
      help: 'Job runs, by kind and outcome: completed, retried, postponed, failed, released.',
      labelNames: ['kind', 'outcome'],
      registers,
    }),
    jobDuration: new Histogram({
      name: 'job_run_duration_seconds',
      help: 'Time a job run took, by kind and outcome.',
      labelNames: ['kind', 'outcome'],
      buckets: jobBuckets,
      registers,
    }),
    renders: new Counter({
      name: 'renders_total',
      help: 'Render runs, by outcome: completed, failed (the generation failed), retried, postponed, released, skipped (already finished).',
      labelNames: ['outcome'],
      registers,
    }),
    renderDuration: new Histogram({
      name: 'render_duration_seconds',
      help: 'Time a render run took (images, engine, encoding, storage), by outcome.',
      labelNames: ['outcome'],
      buckets: jobBuckets,
      registers,
    }),
    engineCalls: new Counter({
      name: 'render_engine_calls_total',
      help: 'Calls to each render engine, by engine and outcome: ok, transient (the render moved to the next engine or was retried), final (the generation failed), skipped (does not render the mode or size, circuit open, cap full).',
      labelNames: ['engine', 'outcome'],
      registers,
    }),
    engineCallDuration: new Histogram({
      name: 'render_engine_call_duration_seconds',
      help: 'Time a render engine took to answer, by engine and outcome (ok, transient, final).',
      labelNames: ['engine', 'outcome'],
      buckets: jobBuckets,
      registers,
    }),
    observeCircuits(read) {
      circuitReaders.push(read);
    },
    deliveries: new Counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook delivery attempts, by outcome: delivered, retried, failed (no attempt left or 410), abandoned (endpoint disabled).',
      labelNames: ['outcome'],
      registers,
    }),
    deliveryDuration: new Histogram({
      name: 'webhook_delivery_duration_seconds',
      help: 'Time a delivery attempt took, by outcome.',
      labelNames: ['outcome'],
      buckets: jobBuckets,
      registers,
    }),
    async scrape() {
      await collect();
      return (await processMetricsText()) + (await registry.metrics());
    },
  };
}
