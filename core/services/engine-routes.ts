import { ConfigError } from '../../config/load.ts';
import type { Config, EngineMode } from '../../config/schema.ts';
import type { GenerationMode } from '../domain/generation.ts';
import type { RenderEngine } from '../ports/render-engine.ts';
import type { CircuitRule } from './circuit-breaker.ts';

/** One engine as the router uses it: the engine and its own limits. */
export interface RoutedEngine {
  engine: RenderEngine;
  /** It must answer within this, or the render moves on (`render_timeout`). */
  timeoutMs: number;
  /** Its calls in flight at once, cluster-wide (the limits port). */
  maxConcurrent: number;
  circuit: CircuitRule;
}

/** Each mode's engines, in the order a render tries them. */
export type RenderRoutes = Record<GenerationMode, RoutedEngine[]>;

type Assert<T extends true> = T;
/**
 * Config lists the modes it routes itself, as it imports nothing from core: this fails to compile
 * when its list and the domain's differ.
 */
export type ConfigRoutesTheDomainModes = Assert<
  [GenerationMode] extends [EngineMode] ? ([EngineMode] extends [GenerationMode] ? true : false) : false
>;

/**
 * `render.engines` as engines with their limits. `engineOf` gives a choice's engine: the
 * `renderer` port for `plugins.renderer` (so replacing the port, as tests and embedders do,
 * replaces that engine in every route), the plugin host's others otherwise. Throws a ConfigError
 * when two different engines share a name (their caps, circuits and metrics would be one) or
 * `render.engineLimits` names no engine routed.
 */
export function renderRoutes(config: Config, engineOf: (choice: string) => RenderEngine): RenderRoutes {
  const { engines, engineDefaults, engineLimits, maxConcurrentEngineCalls } = config.render;
  const byName = new Map<string, { engine: RenderEngine; choice: string }>();
  const limitsOf = (engine: RenderEngine, choice: string) => {
    const own = engineLimits[engine.name] ?? engineLimits[choice] ?? {};
    return {
      timeoutMs: own.timeoutMs ?? engineDefaults.timeoutMs,
      maxConcurrent: own.maxConcurrent ?? maxConcurrentEngineCalls,
      circuit: { ...engineDefaults.circuit, ...own.circuit },
    };
  };
  const routes = {} as RenderRoutes;
  const named = new Set<string>();
  for (const [mode, choices] of Object.entries(engines) as Array<[EngineMode, string[]]>) {
    routes[mode] = choices.map((choice) => {
      const engine = engineOf(choice);
      const seen = byName.get(engine.name);
      if (seen && seen.engine !== engine) {
        throw new ConfigError(
          `render.engines.${mode}: '${choice}' and '${seen.choice}' are two engines both named '${engine.name}'; each engine's cap, circuit and metrics go by its name.`,
        );
      }
      byName.set(engine.name, { engine, choice });
      named.add(engine.name).add(choice);
      return { engine, ...limitsOf(engine, choice) };
    });
  }
  const unknown = Object.keys(engineLimits).filter((name) => !named.has(name));
  if (unknown.length) {
    throw new ConfigError(
      `render.engineLimits: ${unknown.map((name) => `'${name}'`).join(', ')} names no engine render.engines routes (${[...byName.keys()].join(', ')}).`,
    );
  }
  return routes;
}

/**
 * The container's routes: `plugins.renderer` is the `renderer` port as registered when first used
 * (a test's or embedder's engine), every other choice the plugin host's engine of that name.
 */
export function configuredRenderRoutes({
  config,
  renderer,
  renderEngines,
}: {
  config: Config;
  renderer: RenderEngine;
  renderEngines: ReadonlyMap<string, RenderEngine>;
}): RenderRoutes {
  return renderRoutes(config, (choice) => (choice === config.plugins.renderer ? renderer : renderEngines.get(choice)!));
}
