import { prepareQueue, shutdown, startScheduler, startWorkers } from '../../core/lifecycle.ts';
import { startMetricsServer, type MetricsServer } from '../../core/metrics/server.ts';
import { boot } from '../boot.ts';
import { UsageError, type Command } from '../command.ts';
import { stopSignal } from '../stop-signal.ts';
import { joinTopology } from '../topology.ts';
import { credentialsBannerLine } from './serve.ts';

export const worker: Command = {
  name: 'worker',
  usage: 'worker',
  summary:
    'Run workers and the periodic sweeps without the API (scale them apart from it); stops after finishing its jobs on SIGTERM.',
  options: {},
  async run(_values, { env, output }) {
    const { config, container } = await boot(env);
    // Listening from the start: a SIGTERM while it is still starting stops it gracefully.
    const stopping = stopSignal();
    let registration: Awaited<ReturnType<typeof joinTopology>> | undefined;
    let metricsServer: MetricsServer | undefined;
    try {
      const pending = await container.cradle.persistence.pendingMigrations();
      if (pending.length)
        throw new UsageError(`The database needs migrations (${pending.join(', ')}). Run 'visualizer migrate' first.`);
      if (config.workers.concurrency === 0)
        throw new UsageError('workers.concurrency is 0: this worker would do nothing.');
      registration = await joinTopology(container.cradle, { role: 'worker', env, output });
      await prepareQueue(container.cradle);
      await startWorkers(container.cradle);
      // Safe in every worker: each sweep runs once per interval in the whole cluster.
      await startScheduler(container.cradle);
      output.out(`Visualizer worker running ${config.workers.concurrency} render jobs at a time`);
      const credentialsLine = credentialsBannerLine(container.cradle.credentials.signer);
      if (credentialsLine) output.out(credentialsLine);
      // A worker has no API to serve /metrics: with metrics.port (VISUALIZER_METRICS_PORT) it gets a server of its own.
      if (config.metrics.enabled && config.metrics.port !== undefined) {
        metricsServer = await startMetricsServer(container.cradle.metrics, {
          port: config.metrics.port,
          host: config.host,
          token: config.metrics.token,
        });
        output.out(`Metrics: ${metricsServer.url}/metrics`);
      }
      await stopping;
      output.err('Stopping: finishing running renders…');
      return 0;
    } finally {
      await metricsServer?.close();
      await registration?.stop();
      await shutdown(container);
    }
  },
};
