import { shutdown, startWorkers } from '../../core/lifecycle.ts';
import { createLogger } from '../../core/logger.ts';
import { boot } from '../boot.ts';
import { UsageError, type Command } from '../command.ts';
import { stopSignal } from '../stop-signal.ts';

export const worker: Command = {
  name: 'worker',
  usage: 'worker',
  summary: 'Run only render workers (scale them apart from the API); stops after finishing its jobs on SIGTERM.',
  options: {},
  async run(_values, { env, output }) {
    const { config, container } = await boot(env, { logger: createLogger() });
    try {
      const pending = await container.cradle.persistence.pendingMigrations();
      if (pending.length) throw new UsageError(`The database needs migrations (${pending.join(', ')}). Run 'visualizer migrate' first.`);
      if (config.workers.concurrency === 0) throw new UsageError('workers.concurrency is 0: this worker would do nothing.');
      await startWorkers(container.cradle);
      output.out(`Visualizer worker running ${config.workers.concurrency} render jobs at a time`);
      await stopSignal();
      output.err('Stopping: finishing running renders…');
      return 0;
    } finally {
      await shutdown(container);
    }
  },
};
