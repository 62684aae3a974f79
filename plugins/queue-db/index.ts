import { asFunction } from 'awilix';
import * as v from 'valibot';
import { definePlugin } from '../../core/plugin.ts';
import { createDbQueue } from './db-queue.ts';

const millis = v.pipe(v.number(), v.integer(), v.minValue(1));

export default definePlugin({
  name: 'db',
  provides: ['queue'],
  configSchema: v.object({
    leaseMs: v.optional(millis, 60_000),
    pollIntervalMs: v.optional(millis, 1_000),
    maxAttempts: v.optional(millis, 10),
  }),
  register({ container, options }) {
    container.register({
      queue: asFunction((cradle) => createDbQueue(cradle, options))
        .singleton()
        .disposer((queue) => queue.stop()),
    });
  },
});
