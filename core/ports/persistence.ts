/**
 * Persistence port: the repositories the core reads and writes through.
 *
 * An adapter must guarantee:
 * - Durability: a call that resolved is committed (it survives a crash of the process).
 * - Atomicity: everything done inside one `transaction()` commits together or not at all.
 * - Tenancy: every lookup that takes an `organizationId` returns nothing that belongs to
 *   another organization, so a caller cannot reach a foreign row by guessing its id.
 * - Credits never go below zero, however many debits race (`debit` is one atomic check-and-set).
 * - Timestamps are integers in epoch milliseconds; money and credits are integers.
 */
export interface Organization {
  id: string;
  name: string;
  creditBalance: number;
  createdAt: number;
}

export interface Store {
  id: string;
  organizationId: string;
  name: string;
  /** Days before a conversion in which a visualization earns it; 7 unless the store says otherwise. */
  attributionWindowDays: number;
  createdAt: number;
}

/** `secret` keys (`visualizer_…`) call `/v1`; `conversion` keys (`viz_…`) call the order webhook. */
export type ApiKeyKind = 'secret' | 'conversion';

export interface ApiKey {
  id: string;
  organizationId: string;
  kind: ApiKeyKind;
  name: string | null;
  /** The first characters of the key, kept so people can tell keys apart; never enough to use it. */
  displayPrefix: string;
  createdAt: number;
  revokedAt: number | null;
  lastUsedAt: number | null;
}

export interface NewApiKey {
  id: string;
  organizationId: string;
  kind: ApiKeyKind;
  name: string | null;
  displayPrefix: string;
  /** SHA-256 (hex) of the full key; the key itself is never stored. */
  keyHash: string;
  createdAt: number;
}

export interface CreditLedgerEntry {
  id: string;
  organizationId: string;
  /** Positive for grants and refunds, negative for debits. */
  delta: number;
  balanceAfter: number;
  reason: string;
  /** What the entry is about, e.g. a generation id; null for manual grants. */
  reference: string | null;
  createdAt: number;
}

export interface CreditChange {
  organizationId: string;
  amount: number;
  reason: string;
  reference?: string | null;
  ledgerEntryId: string;
  at: number;
}

export interface OrganizationRepository {
  create(org: { id: string; name: string; createdAt: number }): Promise<Organization>;
  get(id: string): Promise<Organization | null>;
  list(): Promise<Organization[]>;
}

export interface StoreRepository {
  create(store: Store): Promise<Store>;
  get(organizationId: string, storeId: string): Promise<Store | null>;
  /** The store alone, for keyless browser calls that only carry a store id. */
  findById(storeId: string): Promise<Store | null>;
  list(organizationId: string): Promise<Store[]>;
}

export interface ApiKeyRepository {
  create(key: NewApiKey): Promise<ApiKey>;
  /** The key whose hash matches, with its hash, revoked or not; the caller decides what revoked means. */
  findByHash(keyHash: string): Promise<(ApiKey & { keyHash: string }) | null>;
  list(organizationId: string): Promise<ApiKey[]>;
  /** Marks the key revoked; returns null when the organization has no such key. Revoking twice keeps the first time. */
  revoke(organizationId: string, keyId: string, at: number): Promise<ApiKey | null>;
  touch(keyId: string, at: number): Promise<void>;
}

export interface CreditRepository {
  /** Adds credits and writes the ledger entry. Returns the new balance. */
  grant(change: CreditChange): Promise<number>;
  /**
   * Takes credits only if the balance covers them, and writes the ledger entry.
   * Returns the new balance, or null (and changes nothing) when the balance is short.
   */
  debit(change: CreditChange): Promise<number | null>;
  ledger(organizationId: string, limit: number): Promise<CreditLedgerEntry[]>;
}

export type GenerationStatus = 'processing' | 'complete' | 'failed';

export interface ProductInput {
  productId: string | number;
  productTitle: string;
  imageUrl: string;
  productUrl?: string;
  dimensions?: { width?: number; height?: number; depth?: number; unit: 'cm' | 'in' };
}

export interface ImageVariant {
  url: string;
  width: number;
}

export interface ImageVariants {
  list: ImageVariant;
  card: ImageVariant;
  detail: ImageVariant;
}

export interface GenerationRecord {
  id: string;
  organizationId: string;
  storeId: string | null;
  apiKeyId: string | null;
  widgetId: string | null;
  status: GenerationStatus;
  mode: 'virtual-try-on' | 'room-visualizer';
  imageSize: '1K' | '2K' | '4K';
  creditsCharged: number;
  /** An https URL to fetch, or `private:<key>` for an upload kept in private blob storage. */
  sourceImage: string;
  products: ProductInput[];
  hint: string | null;
  metadata: Record<string, string> | null;
  imageUrl: string | null;
  imageVariants: ImageVariants | null;
  errorCode: string | null;
  errorMessage: string | null;
  visitorId: string | null;
  sessionId: string | null;
  createdAt: number;
  completedAt: number | null;
}

export interface GenerationPage {
  data: GenerationRecord[];
  hasMore: boolean;
}

export interface GenerationRepository {
  create(generation: GenerationRecord): Promise<void>;
  get(organizationId: string, id: string): Promise<GenerationRecord | null>;
  /** The status of any organization's generation, or null when there is none: for sweeps, never for a caller's reads. */
  statusOf(id: string): Promise<GenerationStatus | null>;
  /** Newest first; `startingAfter` is the id of the last item of the previous page. */
  list(organizationId: string, options: { limit: number; startingAfter?: string; status?: GenerationStatus }): Promise<GenerationPage>;
  /** Moves a `processing` generation to `complete`; false (and no change) when it was already terminal. */
  complete(id: string, result: { imageUrl: string; imageVariants: ImageVariants; completedAt: number }): Promise<boolean>;
  /** Moves a `processing` generation to `failed`; false (and no change) when it was already terminal. */
  fail(id: string, error: { code: string; message: string; completedAt: number }): Promise<boolean>;
}

export interface IdempotencyRepository {
  find(organizationId: string, key: string): Promise<string | null>;
  /** Binds the key to the generation; false when the key was already bound (by a concurrent request). */
  bind(organizationId: string, key: string, generationId: string, at: number): Promise<boolean>;
}

export interface OutboxEvent {
  id: string;
  organizationId: string;
  type: string;
  /** The exact JSON body every delivery of this event sends. */
  body: string;
  createdAt: number;
}

export interface EventRepository {
  append(event: OutboxEvent): Promise<void>;
  get(organizationId: string, id: string): Promise<OutboxEvent | null>;
  /** Newest first; `startingAfter` is the id of the last event of the previous page. */
  list(organizationId: string, options: { limit: number; startingAfter?: string; type?: string }): Promise<OutboxEvent[]>;
}

export interface QueuedJob {
  id: string;
  kind: string;
  payload: unknown;
  /** Runs so far, this one included. */
  attempts: number;
  /**
   * Earlier runs that failed: those that threw (except for an outage: `PostponeJob`, an unavailable
   * database) and those whose worker lost the lease (died, or hung). What a handler counts its
   * retries by, so an outage does not use them up.
   */
  failures: number;
}

export interface JobRepository {
  enqueue(job: { id: string; kind: string; payload: unknown; runAt: number; createdAt: number }): Promise<void>;
  /**
   * Leases up to `limit` due jobs of the given kinds to `workerId` until `now + leaseMs`, counting
   * an attempt on each, and a failure on each whose last lease expired (its worker died). A job is
   * due when its run time has come and it has no live lease.
   * Two concurrent claims never return the same job.
   */
  claim(options: { kinds: string[]; workerId: string; now: number; leaseMs: number; limit: number }): Promise<QueuedJob[]>;
  /** Removes a finished job, if `workerId` still holds it. */
  complete(id: string, workerId: string): Promise<boolean>;
  /**
   * Releases the lease and runs the job again at `runAt`; `failed` counts the run among the job's
   * failures (false for a run an outage postponed).
   */
  reschedule(id: string, workerId: string, retry: { runAt: number; error: string; failed: boolean }): Promise<boolean>;
  /** Keeps leases alive while their jobs run. */
  extendLeases(ids: string[], workerId: string, until: number): Promise<void>;
  /** Count of jobs not yet finished (queued or running); for tests and readiness checks. */
  pending(kinds?: string[]): Promise<number>;
}

export type EndpointStatus = 'enabled' | 'disabled';

export interface WebhookEndpointRecord {
  id: string;
  organizationId: string;
  url: string;
  description: string | null;
  /** Event type names, or `['*']` for all. */
  enabledEvents: string[];
  status: EndpointStatus;
  disabledReason: string | null;
  secret: string;
  /** Secrets replaced by rotations, newest first, each still signing until its own `expiresAt` (see core/domain/webhook-secrets.ts). */
  previousSecrets: Array<{ secret: string; expiresAt: number }>;
  /** When its deliveries started failing without a success since; null while healthy. */
  failingSince: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface WebhookEndpointRepository {
  create(endpoint: WebhookEndpointRecord): Promise<void>;
  /** A live (not deleted) endpoint of the organization; inside a transaction `forUpdate` locks it (Postgres) until commit. */
  get(organizationId: string, id: string, options?: { forUpdate?: boolean }): Promise<WebhookEndpointRecord | null>;
  /** Newest first. */
  list(organizationId: string, options: { limit: number; startingAfter?: string }): Promise<{ data: WebhookEndpointRecord[]; hasMore: boolean }>;
  count(organizationId: string): Promise<number>;
  /** Enabled endpoints of the organization subscribed to the type (or `*`). */
  subscribedTo(organizationId: string, eventType: string): Promise<WebhookEndpointRecord[]>;
  update(endpoint: WebhookEndpointRecord): Promise<void>;
  delete(organizationId: string, id: string, at: number): Promise<boolean>;
  /** Records a failed delivery: starts the failing period unless one is running. */
  markFailing(id: string, at: number): Promise<void>;
  markHealthy(id: string): Promise<void>;
  disable(id: string, reason: string, at: number): Promise<void>;
  /** Disables enabled endpoints failing since before `before`; returns their ids. */
  disableFailingSince(before: number, reason: string, at: number): Promise<string[]>;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface DeliveryRecord {
  id: string;
  eventId: string;
  endpointId: string;
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt: number | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface DeliveryAttempt {
  id: string;
  deliveryId: string;
  attemptedAt: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  responseBody: string | null;
}

/** Everything one delivery attempt needs, read together. */
export interface DeliveryForAttempt {
  delivery: DeliveryRecord;
  /** Deleted endpoints too (`deleted: true`): the worker abandons their deliveries. */
  endpoint: (WebhookEndpointRecord & { deleted: boolean }) | null;
  /** Null only if the event is gone or belongs to another organization than the endpoint. */
  event: OutboxEvent | null;
}

export interface DeliveryRepository {
  create(delivery: DeliveryRecord): Promise<void>;
  /** The delivery with its endpoint and event, in one read, for the worker. */
  forAttempt(id: string): Promise<DeliveryForAttempt | null>;
  forEvent(eventId: string): Promise<DeliveryRecord[]>;
  update(delivery: DeliveryRecord): Promise<void>;
  recordAttempt(attempt: DeliveryAttempt): Promise<void>;
  /** Every attempt at the event's deliveries, oldest first, with the endpoint each went to. */
  attemptsForEvent(eventId: string): Promise<Array<DeliveryAttempt & { endpointId: string }>>;
}

export type ConversionStatus = 'pending' | 'processing' | 'on-hold' | 'completed' | 'refunded' | 'cancelled';

/** Who reported an order: the shop's server (order webhook), the browser SDK, or both (merged). */
export type ConversionSource = 'server' | 'browser' | 'both';

export interface ConversionItem {
  productId: string;
  quantity: number;
  priceCents: number;
  totalCents: number;
}

/** Which visualization earned a conversion, and the revenue of the items it showed. */
export interface ConversionAttribution {
  generationId: string;
  attributedRevenueCents: number;
  /** Product ids (as strings) of the order's items that the generation visualized, in item order. */
  attributedItems: string[];
}

export interface ConversionRecord {
  id: string;
  organizationId: string;
  storeId: string;
  orderId: string;
  /** Null when the report carried none (an empty string is stored as null). */
  visitorId: string | null;
  sessionId: string | null;
  totalCents: number;
  currency: string;
  platform: string;
  status: ConversionStatus;
  items: ConversionItem[];
  source: ConversionSource;
  attribution: ConversionAttribution | null;
  orderCreatedAt: number;
  createdAt: number;
  updatedAt: number;
}

export interface ConversionRepository {
  /** Inserts the conversion unless its (storeId, orderId) exists; true when this call inserted it. */
  insertIfAbsent(conversion: ConversionRecord): Promise<boolean>;
  /** The store's conversion for the order; inside a transaction `forUpdate` locks it (Postgres) until commit. */
  findByOrder(storeId: string, orderId: string, options?: { forUpdate?: boolean }): Promise<ConversionRecord | null>;
  update(conversion: ConversionRecord): Promise<void>;
  /** Newest `orderCreatedAt` first; `from` inclusive, `to` exclusive; `startingAfter` is a conversion id. */
  list(
    organizationId: string,
    options: { storeId?: string; from?: number; to?: number; limit: number; startingAfter?: string },
  ): Promise<{ data: ConversionRecord[]; hasMore: boolean }>;
  /** Counts over the store's conversions with `orderCreatedAt` in [from, to), refunded and cancelled ones left out. */
  totals(storeId: string, range: { from: number; to: number }): Promise<{ conversions: number; attributedConversions: number; attributedRevenue: Record<string, number> }>;
  /** Distinct non-empty visitor ids of the store's conversions in [from, to): all of them, and those still counting. */
  visitors(storeId: string, range: { from: number; to: number }): Promise<{ seen: string[]; converted: string[] }>;
}

/** A generation as attribution sees it. */
export interface AttributionCandidate {
  id: string;
  storeId: string;
  visitorId: string | null;
  sessionId: string | null;
  status: GenerationStatus;
  productIds: string[];
  createdAt: number;
}

/** Read model over the generations table for attribution and reports. */
export interface VisualizationRepository {
  /** Complete generations of the store created in [from, to] whose visitor or session id matches a given (non-empty) one. */
  candidates(storeId: string, match: { visitorId: string | null; sessionId: string | null; from: number; to: number }): Promise<AttributionCandidate[]>;
  /** Complete generations of the store created in [from, to), and the distinct non-empty visitor ids they were made for. */
  summary(storeId: string, range: { from: number; to: number }): Promise<{ visualizations: number; visitorIds: string[] }>;
}

export interface WidgetRecord {
  id: string;
  organizationId: string;
  storeId: string;
  mode: 'virtual-try-on' | 'room-visualizer';
  imageSize: '1K' | '2K' | '4K';
  /** Origins (`https://shop.example`, `http://localhost:3000`) whose pages may call the keyless widget endpoints. */
  allowedOrigins: string[];
  dailyGenerationCap: number;
  createdAt: number;
}

export interface WidgetRepository {
  create(widget: WidgetRecord): Promise<void>;
  get(organizationId: string, id: string): Promise<WidgetRecord | null>;
  /** The widget alone, for keyless browser calls that only carry its id. */
  findById(id: string): Promise<WidgetRecord | null>;
  /** Newest first. */
  list(organizationId: string, options: { storeId?: string; limit: number; startingAfter?: string }): Promise<{ data: WidgetRecord[]; hasMore: boolean }>;
  /** Generations the widget created at or after `since`. */
  countGenerationsSince(widgetId: string, since: number): Promise<number>;
  /** The widget's generation made for that visitor, or null. */
  generationForVisitor(widgetId: string, visitorId: string, generationId: string): Promise<GenerationRecord | null>;
}

/** A logged-in user linked to a browser visitor by the SDK's `identify`. */
export interface VisitorIdentity {
  organizationId: string;
  storeId: string;
  visitorId: string;
  sessionId: string | null;
  userId: string;
  traits: Record<string, string | number | boolean>;
  createdAt: number;
  updatedAt: number;
}

export interface VisitorIdentityRepository {
  /** One row per (storeId, visitorId): a later identify replaces user id, traits and session, keeps `createdAt`. */
  upsert(identity: VisitorIdentity): Promise<void>;
  get(storeId: string, visitorId: string): Promise<VisitorIdentity | null>;
  /** Distinct visitor ids identified (created or updated) in [from, to). */
  visitorsSeen(storeId: string, range: { from: number; to: number }): Promise<string[]>;
}

/** The repositories, all bound to one connection or transaction. */
export interface Repositories {
  organizations: OrganizationRepository;
  stores: StoreRepository;
  apiKeys: ApiKeyRepository;
  credits: CreditRepository;
  generations: GenerationRepository;
  idempotencyKeys: IdempotencyRepository;
  events: EventRepository;
  jobs: JobRepository;
  webhookEndpoints: WebhookEndpointRepository;
  deliveries: DeliveryRepository;
  conversions: ConversionRepository;
  visualizations: VisualizationRepository;
  widgets: WidgetRepository;
  visitorIdentities: VisitorIdentityRepository;
}

export interface MigrationReport {
  applied: string[];
}

export interface Persistence extends Repositories {
  readonly dialect: 'sqlite' | 'postgres';
  /** Runs `work` in one transaction; repositories passed to it commit together. Rolls back if it throws. */
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
  /** Applies pending migrations under a lock, so concurrent starters do not race. */
  migrate(): Promise<MigrationReport>;
  /** Names of migrations not yet applied; empty when the schema is current. */
  pendingMigrations(): Promise<string[]>;
  /**
   * Calls `listener` soon after any process commits a job (Postgres LISTEN/NOTIFY). Absent where
   * the database cannot signal other processes; workers then fall back to polling.
   */
  listenForJobs?(listener: () => void): Promise<() => Promise<void>>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  /**
   * True when `error` (or one of its causes) says the database could not be reached or was too
   * busy to answer in time: connection refused or lost, server shutting down, a lock wait that
   * timed out, a full disk. Retrying later may succeed. False for anything else, which is a bug.
   */
  isUnavailable(error: unknown): boolean;
  close(): Promise<void>;
}
