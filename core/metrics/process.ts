import { collectDefaultMetrics, Registry } from 'prom-client';

let processRegistry: Registry | undefined;

/**
 * prom-client's default metrics (CPU, memory, event loop lag, GC, handles): one set per process,
 * started at the first scrape, since they describe the process whatever container asks.
 */
export function processMetricsText(): Promise<string> {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry.metrics();
}
