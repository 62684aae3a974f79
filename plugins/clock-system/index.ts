import { definePlugin } from '../../kit/plugin.ts';

export default definePlugin({
  name: 'clock-system',
  provides: ['clock'],
  register() {
    return { clock: { now: () => Date.now() } };
  },
});
