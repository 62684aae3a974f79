import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../config/load.ts';
import { freePort } from '../../core/http/free-port.ts';
import { startHttpServer } from '../../core/http/server.ts';
import { shutdown } from '../../core/lifecycle.ts';
import { createKernel, type KernelOptions } from '../../core/kernel.ts';
import { silentLogger, type Logger } from '../../core/logger.ts';
import { builtinPlugins } from '../../plugins/catalogue.ts';
import { appModules } from '../../cli/app-modules.ts';
import { createResponseValidator } from './response-validator.ts';

/**
 * A running Visualizer on a fresh SQLite data dir and a free loopback port, with the modules `serve`
 * registers. Every answer is checked against the OpenAPI document; `close()` throws naming each
 * answer that broke it, so the suite that caused it fails. `checkResponses: false` leaves the check
 * out, for the benchmarks, which measure the service as `serve` runs it.
 */
export async function startTestApp(
  options: {
    env?: Record<string, string>;
    config?: Record<string, unknown>;
    logger?: Logger;
    checkResponses?: boolean;
  } & Pick<KernelOptions, 'ports' | 'outbound'> = {},
) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-app-'));
  const port = await freePort();
  const config = loadConfig({ VISUALIZER_DATA_DIR: dataDir, PORT: String(port), ...options.env }, options.config);
  const container = await createKernel(config, {
    catalogue: builtinPlugins,
    logger: options.logger ?? silentLogger,
    ports: options.ports,
    outbound: options.outbound,
  });
  await container.cradle.persistence.migrate();
  const responses = createResponseValidator();
  const server = await startHttpServer(container, {
    port,
    host: '127.0.0.1',
    modules: appModules,
    ...(options.checkResponses === false ? {} : { wrapFetch: responses.wrapFetch }),
  });
  return {
    url: server.url,
    container,
    tenants: container.cradle.tenants,
    /** Answers so far that break the OpenAPI document (also thrown by `close()`). */
    responseViolations: responses.violations,
    async close() {
      await server.close();
      await shutdown(container);
      rmSync(dataDir, { recursive: true, force: true });
      await responses.assertNoViolations();
    },
  };
}

export type TestApp = Awaited<ReturnType<typeof startTestApp>>;

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
