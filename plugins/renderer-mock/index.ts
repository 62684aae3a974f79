import { asValue } from 'awilix';
import * as v from 'valibot';
import { definePlugin } from '../../core/plugin.ts';
import { createMockRenderer } from './mock-renderer.ts';

export { createMockRenderer } from './mock-renderer.ts';

export default definePlugin({
  name: 'mock',
  provides: ['renderer'],
  configSchema: v.object({
    /** Simulated engine time per render, in ms. */
    latencyMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0)), 0),
  }),
  register({ container, options }) {
    container.register({ renderer: asValue(createMockRenderer(options)) });
  },
});
