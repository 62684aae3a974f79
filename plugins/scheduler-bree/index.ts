import { asFunction } from 'awilix';
import type { Cradle } from '../../core/cradle.ts';
import { definePlugin } from '../../core/plugin.ts';
import { createBreeScheduler } from './bree-scheduler.ts';

export default definePlugin({
  name: 'bree',
  provides: ['scheduler'],
  register({ container }) {
    container.register({
      scheduler: asFunction(({ logger }: Cradle) => createBreeScheduler({ logger }))
        .singleton()
        .disposer((scheduler) => scheduler.stop()),
    });
  },
});
