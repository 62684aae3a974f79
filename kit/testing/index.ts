/**
 * `visualizer/testing`: one contract suite per port. A plugin's test file calls the suite for
 * each port it provides, with a factory for its adapter and the capabilities it declares; the
 * suite registers node:test tests. Every built-in plugin runs these same suites.
 */
export type { PersistenceDatabase } from './database.ts';
export { persistenceContract, type PersistenceContractOptions } from './persistence.ts';
// The persistence contract's suite for each group of repositories (core/ports/persistence/index.ts),
// which `persistenceContract` runs; each needs a migrated database (see PersistenceSuiteContext).
export type { PersistenceSuiteContext } from './persistence-context.ts';
export { persistenceTenancyContract } from './persistence-tenancy.ts';
export { persistenceAccountsContract } from './persistence-accounts.ts';
export { persistenceGenerationsContract } from './persistence-generations.ts';
export { persistenceDeliveryContract } from './persistence-delivery.ts';
export { persistenceAttributionContract } from './persistence-attribution.ts';
export { persistenceVisitorsContract } from './persistence-visitors.ts';
export { persistenceRetentionContract } from './persistence-retention.ts';
export {
  jobQueueContract,
  type ClaimedJob,
  type JobQueueContractOptions,
  type JobQueueDeps,
  type JobQueueSettings,
} from './job-queue.ts';
export { imageCdnContract, unsafeKeys, type ImageCdnContractOptions } from './image-cdn.ts';
export {
  damagedJpeg,
  faultClassification,
  gradientPhoto,
  product,
  productImage,
  rejectsWithRenderError,
  renderEngineContract,
  type RenderEngineContractOptions,
  type RenderFault,
} from './render-engine.ts';
export { webhookTransportContract, type WebhookTransportContractOptions } from './webhook-transport.ts';
export { schedulerContract, type SchedulerContractOptions } from './scheduler.ts';
export { clockContract, type ClockContractOptions } from './clock.ts';
export { idsContract, testIds, type IdsContractOptions } from './ids.ts';
export { limitsContract, type LimitsContractOptions } from './limits.ts';
export {
  contentCredentialsContract,
  manifestActions,
  readContentCredentials,
  withOneImageByteChanged,
  type ActiveManifest,
  type ContentCredentialsContractOptions,
  type ReadCredentials,
} from './content-credentials.ts';

// What the suites use themselves, for a plugin's own tests.
export {
  startHttpsReceiver,
  testCertificate,
  type HttpsReceiver,
  type HttpsReceiverHandler,
  type ReceivedRequest,
  type TestCertificate,
} from './https-receiver.ts';
export { waitFor, type WaitForOptions } from './wait-for.ts';
export { pluginContext, type PluginContextOptions } from './plugin-context.ts';
