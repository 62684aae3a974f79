import { asValue } from 'awilix';
import { definePlugin } from '../../core/plugin.ts';

export default definePlugin({
  name: 'system',
  provides: ['clock'],
  register({ container }) {
    container.register({ clock: asValue({ now: () => Date.now() }) });
  },
});
