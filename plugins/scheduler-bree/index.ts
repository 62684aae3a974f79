import { definePlugin } from '../../kit/plugin.ts';
import { createBreeScheduler } from './bree-scheduler.ts';

export default definePlugin({
  name: 'scheduler-bree',
  provides: ['scheduler'],
  register({ logger }) {
    const scheduler = createBreeScheduler({ logger });
    return { scheduler, dispose: () => scheduler.stop() };
  },
});
