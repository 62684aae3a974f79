import { definePlugin } from '../../kit/plugin.ts';
import { createMemoryLimits } from './memory-limits.ts';

export { createMemoryLimits } from './memory-limits.ts';

/** Limits kept in this process's memory: right for one process, N times too generous for N. */
export default definePlugin({
  name: 'limits-memory',
  provides: ['limits'],
  register() {
    return { limits: createMemoryLimits() };
  },
});
