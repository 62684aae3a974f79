import { asFunction } from 'awilix';
import type { Cradle } from '../../core/cradle.ts';
import { definePlugin, type PortName } from '../../core/plugin.ts';
import { createBreeScheduler } from './bree-scheduler.ts';

export default definePlugin({
  name: 'bree',
  // The cast goes once PortName includes 'scheduler'.
  provides: ['scheduler' as PortName],
  register({ container }) {
    container.register({
      scheduler: asFunction(({ logger }: Cradle) => createBreeScheduler({ logger }))
        .singleton()
        .disposer((scheduler) => scheduler.stop()),
    });
  },
});
