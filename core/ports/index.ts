import type { Clock } from './clock.ts';
import type { ContentCredentials } from './content-credentials.ts';
import type { IdGenerator } from './ids.ts';
import type { ImageCdn } from './image-cdn.ts';
import type { JobQueue } from './job-queue.ts';
import type { Limits } from './limits.ts';
import type { Persistence } from './persistence/index.ts';
import type { RenderEngine } from './render-engine.ts';
import type { Scheduler } from './scheduler.ts';
import type { PortName } from '../../config/port-names.ts';
import type { WebhookTransport } from './webhook-transport.ts';

export { portNames, type PortName } from '../../config/port-names.ts';

/** Each port's interface by name. */
export interface Ports {
  persistence: Persistence;
  clock: Clock;
  ids: IdGenerator;
  limits: Limits;
  cdn: ImageCdn;
  renderer: RenderEngine;
  credentials: ContentCredentials;
  queue: JobQueue;
  transport: WebhookTransport;
  scheduler: Scheduler;
}

// Fails to compile when a port is named but has no interface here, or the other way round.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
// biome-ignore lint/correctness/noUnusedVariables: a compile-time check, never used as a type.
type PortsMatchNames = Assert<Same<keyof Ports, PortName>>;
