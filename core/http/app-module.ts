import type { H3 } from 'h3';
import type { Config } from '../../config/schema.ts';
import type { Cradle } from '../cradle.ts';

/**
 * Pages and files an application serves beside the API (the demo shop, the browser SDK's
 * bundles). The composition root (the CLI) picks the modules and hands them to `createHttpApp`,
 * so core serves them without importing them. Handlers reach services with `services(event)`
 * and answer errors with `ApiError`, like the API's own routes, all taken from app-module-api.ts.
 */
export interface AppModule {
  /** Names the module in logs. */
  name: string;
  /** Adds the module's routes; `config` is the process's, for routes that exist only in some setups. */
  routes(app: H3, config: Config): void;
  /**
   * Work to do once before the server starts answering (publishing images its pages link to,
   * say). A failure is logged and the server starts anyway: a module is never the API's reason
   * not to run.
   */
  start?(services: Cradle): Promise<void>;
  /**
   * Lines for the startup banner of `visualizer serve`, after the line with the address; `services`
   * lets a line name what is in the database (an organization's id, say).
   */
  banner?(config: Config, services: Cradle): string[] | Promise<string[]>;
}

/**
 * Route options of a page that answers its path with a trailing slash too (`/dashboard/`, where
 * its relative URLs resolve). Every other route answers only its path as written: the router would
 * take `/v1/generations/` for `/v1/generations`, so the app answers that 404 (see createHttpApp).
 */
export const answersTrailingSlash = { meta: { trailingSlash: true } } as const;

/** Runs each module's start-up work; failures are logged, not thrown. */
export async function startAppModules(modules: readonly AppModule[], services: Cradle): Promise<void> {
  for (const module of modules) {
    try {
      await module.start?.(services);
    } catch (error) {
      services.logger.warn(`${module.name}: its start-up work failed`, {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
