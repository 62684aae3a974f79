/**
 * `visualizer/plugin`: what a plugin needs to implement a port, and nothing internal. Built-in
 * plugins import the core only through this file, as a third-party plugin would.
 */

// Defining a plugin.
export { definePlugin, type AnyPlugin, type Plugin, type PluginContext, type Provided } from '../core/plugin.ts';
export { portNames, type PortName, type Ports } from '../core/ports/index.ts';
/** How a plugin asks for the application's shared settings (data dir, public URL …) among its options. */
export type { OptionFeed, SharedSetting, SharedSettingFeeds } from '../config/plugin-settings.ts';
export type { Logger } from '../core/logger.ts';

// The ports. Persistence is split by aggregate; the index re-exports every repository interface.
export type * from '../core/ports/persistence/index.ts';
export type * from '../core/ports/queue-tables/index.ts';
export type { Clock } from '../core/ports/clock.ts';
export type { IdGenerator } from '../core/ports/ids.ts';
export type { FetchedObject, ImageCdn, ListedObject, StoredObject, Visibility } from '../core/ports/image-cdn.ts';
export {
  jobsChannel,
  outageRetryDelay,
  PostponeJob,
  RetryJob,
  type DeadLetters,
  type JobContext,
  type JobHandler,
  type JobQueue,
  type NewJob,
} from '../core/ports/job-queue.ts';
export {
  defaultProvenance,
  isRenderErrorCode,
  RenderError,
  renderErrorCodes,
  type EngineSupport,
  type Mode,
  type ProductDimensions,
  type RenderEngine,
  type RenderErrorCode,
  type RenderErrorCodeMeaning,
  type RenderProduct,
  type RenderRequest,
  type RenderResult,
} from '../core/ports/render-engine.ts';
export {
  digitalSourceTypeBase,
  digitalSourceTypes,
  digitalSourceTypeUri,
  type ContentCredentials,
  type CredentialedFormat,
  type CredentialsSigner,
  type DigitalSourceType,
  type EngineProvenance,
  type ImageClaim,
  type ProvenanceAction,
} from '../core/ports/content-credentials.ts';
export type { ScheduledTask, Scheduler } from '../core/ports/scheduler.ts';
export {
  flexibleRateLimiter,
  rateLimiterPerRule,
  rateWindow,
  type ConcurrencyCap,
  type Limits,
  type RateDecision,
  type RateLimiter,
  type RateRule,
  type Slot,
} from '../core/ports/limits.ts';
export { reservingRateLimiter, type WindowStore } from '../core/ports/limits-reservations.ts';
export type { DeliveryOutcome, DeliveryRequest, WebhookTransport } from '../core/ports/webhook-transport.ts';
/** Planned, not yet required by any configuration: see docs/plugins.md. */
export type { MailMessage, MailTransport } from '../core/ports/mail-transport.ts';

// The records the ports carry.
export type { Session, StoredUser, User, UserRole, UserToken, UserTokenPurpose } from '../core/domain/accounts.ts';
export type { ApiKey, ApiKeyKind, NewApiKey } from '../core/domain/api-keys.ts';
export type { AttributionCandidate } from '../core/domain/attribution.ts';
export type {
  ConversionAttribution,
  ConversionItem,
  ConversionRecord,
  ConversionSource,
  ConversionStatus,
} from '../core/domain/conversion.ts';
export type { CreditChange, CreditLedgerEntry } from '../core/domain/credits.ts';
export type { DeliveryAttempt, DeliveryRecord, DeliveryStatus } from '../core/domain/delivery.ts';
export type {
  DeletionReason,
  GenerationMode,
  GenerationRecord,
  GenerationStatus,
  GenerationTombstone,
  ImageSize,
  ImageVariant,
  ImageVariants,
  ProductInput,
} from '../core/domain/generation.ts';
export type { QueuedJob } from '../core/domain/job.ts';
export type { Organization } from '../core/domain/organization.ts';
export type { OutboxEvent } from '../core/domain/outbox-event.ts';
export type { Store } from '../core/domain/store.ts';
export type { VisitorIdentity } from '../core/domain/visitor-identity.ts';
export type {
  ErasureProgress,
  ErasureRequester,
  VisitorErasure,
  VisitorErasureStatus,
} from '../core/domain/visitor-erasure.ts';
export type { EndpointStatus, WebhookEndpointRecord } from '../core/domain/webhook-endpoint.ts';
export type { PreviousSecret } from '../core/domain/webhook-secrets.ts';
export type { WidgetCaps, WidgetDayUsage, WidgetRecord } from '../core/domain/widget.ts';

// Helpers an adapter needs to keep the port's promises.
/** The long side in pixels of each output size, which a renderer's image must match. */
export { longSideOf } from '../core/domain/generation.ts';
/** Blob key rules every image CDN enforces, so each accepts and refuses the same keys. */
export {
  assertContentTypeFitsKey,
  assertSafeKey,
  assertSafePrefix,
  contentTypeForKey,
  etagFor,
  isSafeKey,
} from '../core/domain/blob-keys.ts';
/** How a renderer decodes input images, so it reads whatever the intake check accepted. */
export { inputDecoding } from '../core/imaging/input-decoding.ts';
/** sharp, loaded on first use: libvips is tens of MB that a process which renders nothing need not carry. */
export { loadSharp } from '../core/imaging/sharp.ts';
/** Images on their way to a render engine's vendor and back, so an engine needs no image library of its own. */
export { fitToSize, vendorImage, type VendorImage } from '../core/imaging/engine-images.ts';
/** `Retry-After` as milliseconds: a webhook receiver's or a render engine's vendor's. */
export { parseRetryAfter } from '../core/outbound/retry-after.ts';
/** The guarded outbound client a plugin is handed (`context.outbound`), and the error it throws. */
export {
  OutboundError,
  type GuardedClient,
  type OutboundErrorCode,
  type OutboundRequest,
  type OutboundResponse,
} from '../core/outbound/guarded-client.ts';
/** The worker side of a job queue (lanes, retries, leases, stop) over an engine's claim and writes, for queue plugins. */
export { createQueueRunner, type QueueEngine, type QueueRunnerOptions } from './queue-runner.ts';
