import { loadConfig } from '../config/load.ts';
import type { Config } from '../config/schema.ts';
import { createKernel } from '../core/kernel.ts';
import type { Logger } from '../core/logger.ts';
import { builtinPlugins } from '../plugins/catalogue.ts';

/** Config from the environment, and the container built from it with the built-in plugin catalogue. */
export async function boot(env: NodeJS.ProcessEnv, options: { logger?: Logger; config?: Config } = {}) {
  const config = options.config ?? loadConfig(env);
  const container = await createKernel(config, { catalogue: builtinPlugins, logger: options.logger });
  return { config, container };
}
