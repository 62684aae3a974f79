import type { Ports } from '../ports/index.ts';
import type { Config } from '../../config/schema.ts';
import type { Metrics } from '../metrics/registry.ts';
import type { RenderRoutes } from './engine-routes.ts';
import type { Limits } from '../ports/limits.ts';
import type { GenerationMode, ImageSize } from '../domain/generation.ts';
import type { QueuedJob } from '../domain/job.ts';
import type { Logger } from '../logger.ts';
import { outageRetryDelay, PostponeJob } from '../ports/job-queue.ts';
import { RenderError, type RenderEngine, type RenderResult } from '../ports/render-engine.ts';
import { CircuitBreaker, type CircuitPass, type CircuitState } from './circuit-breaker.ts';
import { busyWait, heldSlot, slotLeaseMs } from './cluster-slots.ts';
import type { RoutedEngine } from './engine-routes.ts';

/** The circuit states as the `render_engine_circuit_state` gauge shows them. */
export const circuitGaugeValue: Record<CircuitState, number> = { closed: 0, 'half-open': 1, open: 2 };

/** A render's way down its mode's engines; see EngineRouter. */
export interface EngineRun {
  /**
   * Renders with the engine whose slot `begin` took, moving to the next engine of the mode on a
   * transient failure (its own timeout included). `call` renders with the engine it is given,
   * passing on the signal, which aborts at that engine's timeout or when `signal` does. Rejects
   * with a final RenderError at once, or with the last transient one when no engine is left.
   */
  render(
    call: (engine: RenderEngine, signal: AbortSignal) => Promise<RenderResult>,
    signal?: AbortSignal,
  ): Promise<{ engine: RenderEngine; result: RenderResult }>;
  /** Gives back the slot held; harmless twice. */
  release(): Promise<void>;
}

export interface EngineRouter {
  /**
   * Takes a slot of the first engine of the mode's route that renders the mode and size, whose
   * circuit lets a call through and whose cluster-wide cap has room. With none, the job is
   * postponed (PostponeJob): it waits in the queue, spends no retry, and fetches no image yet.
   */
  begin(
    target: { mode: GenerationMode; imageSize: ImageSize },
    job: Pick<QueuedJob, 'attempts' | 'failures'>,
    logger?: Logger,
  ): Promise<EngineRun>;
  /** Each routed engine's circuit state in this process. */
  circuits(): Array<{ engine: string; state: CircuitState }>;
}

export interface EngineRouterDeps extends Pick<Ports, 'limits' | 'clock'> {
  renderRoutes: RenderRoutes;
  config: Config;
  metrics: Metrics;
  logger: Logger;
}

interface Lane extends RoutedEngine {
  breaker: CircuitBreaker;
  cap: ReturnType<Limits['concurrency']>;
}

interface Taken {
  index: number;
  lane: Lane;
  pass: CircuitPass;
  slot: { release(): Promise<void> };
}

/** The reason an engine does not render this mode or size, or null when it does. */
function unsupported(
  engine: RenderEngine,
  { mode, imageSize }: { mode: GenerationMode; imageSize: ImageSize },
): string | null {
  if (engine.supports?.modes && !engine.supports.modes.includes(mode)) return `it does not render ${mode}`;
  if (engine.supports?.sizes && !engine.supports.sizes.includes(imageSize)) return `it does not render ${imageSize}`;
  return null;
}

/**
 * Routes each render down its mode's engines (render.engines): an engine that does not render the
 * mode or size, whose circuit is open or whose cap is full is passed over; a transient failure
 * moves the render to the next engine within the same job run, so nothing is charged again and
 * no retry is spent; a final one ends there. Circuits are per process: each process learns an
 * engine is down from its own calls, after `circuit.failures` of them.
 */
export function engineRouter({
  renderRoutes,
  config,
  limits,
  metrics,
  clock,
  logger: baseLogger,
}: EngineRouterDeps): EngineRouter {
  // By engine rather than name: an engine routed for both modes has one circuit and one cap.
  const lanes = new Map<RenderEngine, Lane>();
  for (const route of Object.values(renderRoutes)) {
    for (const routed of route) {
      if (lanes.has(routed.engine)) continue;
      lanes.set(routed.engine, {
        ...routed,
        breaker: new CircuitBreaker(routed.circuit, () => clock.now()),
        // Every process's calls to one engine share its cap: one key per engine.
        cap: limits.concurrency('render-engine', routed.maxConcurrent, slotLeaseMs),
      });
    }
  }
  const circuits = () => [...lanes.values()].map((lane) => ({ engine: lane.engine.name, state: lane.breaker.state }));
  metrics.observeCircuits(() => circuits().map(({ engine, state }) => ({ engine, value: circuitGaugeValue[state] })));

  const told = new Set<string>();
  /** An engine passed over; why is logged once per process (unsupported) or at debug level (busy, open). */
  function skip(lane: Lane, reason: string, log: Logger, once: boolean) {
    metrics.engineCalls.inc({ engine: lane.engine.name, outcome: 'skipped' });
    if (!once) return log.debug?.('render engine passed over', { engine: lane.engine.name, reason });
    const key = `${lane.engine.name}\u0000${reason}`;
    if (told.has(key)) return;
    told.add(key);
    log.info('render engine passed over', { engine: lane.engine.name, reason });
  }

  function observe(lane: Lane, outcome: 'ok' | 'transient' | 'final', started: number) {
    metrics.engineCalls.inc({ engine: lane.engine.name, outcome });
    metrics.engineCallDuration.observe({ engine: lane.engine.name, outcome }, (performance.now() - started) / 1000);
  }

  /** The engine's answer, or `render_timeout` once its own timeout passes, whether or not the engine has stopped by then. */
  function withinTimeout(lane: Lane, rendering: Promise<RenderResult>, timeout: AbortSignal): Promise<RenderResult> {
    rendering.catch(() => {}); // a late failure after the timeout won is nobody's
    return Promise.race([
      rendering,
      new Promise<never>((_, reject) => {
        const expire = () =>
          reject(
            new RenderError('render_timeout', `${lane.engine.name} did not answer within ${lane.timeoutMs} ms`, true),
          );
        if (timeout.aborted) expire();
        else timeout.addEventListener('abort', expire, { once: true });
      }),
    ]);
  }

  async function begin(
    target: { mode: GenerationMode; imageSize: ImageSize },
    job: Pick<QueuedJob, 'attempts' | 'failures'>,
    log: Logger = baseLogger,
  ): Promise<EngineRun> {
    const route = renderRoutes[target.mode].map((routed) => lanes.get(routed.engine)!);
    const waits = { busy: false, storeFailed: false, reopensInMs: Infinity, supported: 0 };

    /** The first engine from `from` on that can take this render now, its slot held. */
    async function take(from: number): Promise<Taken | null> {
      for (let index = from; index < route.length; index++) {
        const lane = route[index]!;
        const reason = unsupported(lane.engine, target);
        if (reason) {
          skip(lane, reason, log, true);
          continue;
        }
        waits.supported += 1;
        const pass = lane.breaker.tryPass();
        if (!pass) {
          waits.reopensInMs = Math.min(waits.reopensInMs, lane.circuit.openMs);
          skip(lane, 'its circuit is open', log, false);
          continue;
        }
        let slot;
        try {
          slot = await lane.cap.tryAcquire(lane.engine.name);
        } catch (error) {
          lane.breaker.abandon(pass);
          waits.storeFailed = true;
          log.warn('render engine passed over: the limits store failed', {
            engine: lane.engine.name,
            error: error instanceof Error ? error.message : String(error),
          });
          continue;
        }
        if (!slot) {
          lane.breaker.abandon(pass);
          waits.busy = true;
          skip(lane, 'every slot of its cap is in use', log, false);
          continue;
        }
        return { index, lane, pass, slot: heldSlot(slot, lane.engine.name, { what: 'render', logger: log }) };
      }
      return null;
    }

    let current: Taken | null = await take(0);
    if (!current && waits.supported > 0) {
      if (waits.storeFailed) throw new PostponeJob(outageRetryDelay(job.attempts), 'render: the limits store failed');
      const waitMs = config.render.retryBaseDelayMs;
      // Only open circuits: come back about when the first lets a probe through.
      const delay = waits.busy ? busyWait(job, waitMs) : Math.max(waitMs, Math.min(waits.reopensInMs, 60_000));
      throw new PostponeJob(delay, `render: every engine for ${target.mode} is busy or its circuit open`);
    }

    return {
      async release() {
        await current?.slot.release();
      },
      async render(call, signal) {
        if (!current) {
          // No engine routed for the mode renders it: a configuration no retry can mend.
          log.error('no render engine configured for this mode renders this size', {
            ...target,
            engines: route.map((lane) => lane.engine.name),
          });
          throw new RenderError(
            'render_failed',
            `no engine routed for ${target.mode} renders ${target.imageSize}`,
            false,
          );
        }
        let lastTransient: RenderError | undefined;
        while (current) {
          const { lane, pass } = current;
          const timeout = AbortSignal.timeout(lane.timeoutMs);
          const engineSignal = signal ? AbortSignal.any([signal, timeout]) : timeout;
          const started = performance.now();
          try {
            const result = await withinTimeout(lane, call(lane.engine, engineSignal), timeout);
            if (lane.breaker.state !== 'closed')
              log.info('render engine circuit closed: its probe rendered', { engine: lane.engine.name });
            lane.breaker.succeeded();
            observe(lane, 'ok', started);
            return { engine: lane.engine, result };
          } catch (error) {
            await current.slot.release();
            // A stopping worker's render is run again later, on the same terms: no engine is blamed.
            if (signal?.aborted) {
              lane.breaker.abandon(pass);
              throw error;
            }
            if (!(error instanceof RenderError)) {
              // Outside the port's vocabulary: not the engine's answer, so it is not another engine's to mend.
              lane.breaker.abandon(pass);
              throw error;
            }
            if (!error.transient) {
              lane.breaker.succeeded(); // the engine answered, and refused
              observe(lane, 'final', started);
              throw error;
            }
            const was = lane.breaker.state;
            lane.breaker.failed();
            observe(lane, 'transient', started);
            if (lane.breaker.state === 'open' && was !== 'open')
              log.warn('render engine circuit opened', { engine: lane.engine.name, forMs: lane.circuit.openMs });
            log.warn('render engine failed; trying the next engine', {
              engine: lane.engine.name,
              code: error.code,
              error: error.message,
            });
            lastTransient = error;
            current = await take(current.index + 1);
          }
        }
        throw lastTransient;
      },
    };
  }

  return { begin, circuits };
}
