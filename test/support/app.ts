import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../config/load.ts';
import { startHttpServer } from '../../core/http/server.ts';
import { createKernel } from '../../core/kernel.ts';
import { silentLogger, type Logger } from '../../core/logger.ts';
import { builtinPlugins } from '../../plugins/catalogue.ts';

/** A running Visualizer on a fresh SQLite data dir and a free loopback port. */
export async function startTestApp(options: { env?: Record<string, string>; logger?: Logger } = {}) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-app-'));
  const config = loadConfig({ VISUALIZER_DATA_DIR: dataDir, PORT: '0', ...options.env });
  const container = await createKernel(config, { catalogue: builtinPlugins, logger: options.logger ?? silentLogger });
  await container.cradle.persistence.migrate();
  const server = await startHttpServer(container, { port: 0, host: '127.0.0.1' });
  return {
    url: server.url,
    container,
    tenants: container.cradle.tenants,
    async close() {
      await server.close();
      await container.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type TestApp = Awaited<ReturnType<typeof startTestApp>>;

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
