import * as v from 'valibot';
import { definePlugin } from '../../kit/plugin.ts';
import { createMockRenderer } from './mock-renderer.ts';

export { createMockRenderer } from './mock-renderer.ts';

export default definePlugin({
  name: 'renderer-mock',
  provides: ['renderer'],
  configSchema: v.object({
    /** Simulated engine time per render, in ms. */
    latencyMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0)), 0),
  }),
  register({ options }) {
    return { renderer: createMockRenderer(options) };
  },
});
