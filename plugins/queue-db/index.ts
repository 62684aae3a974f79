import * as v from 'valibot';
import { definePlugin } from '../../kit/plugin.ts';
import { createDbQueue } from './db-queue.ts';

const millis = v.pipe(v.number(), v.integer(), v.minValue(1));

export default definePlugin({
  name: 'queue-db',
  provides: ['queue'],
  configSchema: v.object({
    leaseMs: v.optional(millis, 60_000),
    pollIntervalMs: v.optional(millis, 1_000),
    maxAttempts: v.optional(millis, 10),
    retryDelayMs: v.optional(millis, 1_000),
  }),
  register({ options, logger, port }) {
    const queue = createDbQueue(
      { persistence: port('persistence'), clock: port('clock'), ids: port('ids'), logger },
      options,
    );
    return { queue, dispose: () => queue.stop() };
  },
});
