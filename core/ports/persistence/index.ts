/**
 * Persistence port: the repositories the core reads and writes through, one file per aggregate.
 *
 * An adapter must guarantee:
 * - Durability: a call that resolved is committed (it survives a crash of the process).
 * - Atomicity: everything done inside one `transaction()` commits together or not at all.
 * - Tenancy: every lookup that takes an `organizationId` returns nothing that belongs to
 *   another organization, so a caller cannot reach a foreign row by guessing its id.
 * - Credits never go below zero, however many debits race (`debit` is one atomic check-and-set).
 * - Timestamps are integers in epoch milliseconds; money and credits are integers.
 */
import type { ApiKeyRepository } from './api-keys.ts';
import type { ConversionRepository } from './conversions.ts';
import type { CreditRepository } from './credits.ts';
import type { DeliveryRepository } from './deliveries.ts';
import type { EventRepository } from './events.ts';
import type { GenerationRepository } from './generations.ts';
import type { IdempotencyRepository } from './idempotency-keys.ts';
import type { JobRepository } from './jobs.ts';
import type { OrganizationRepository } from './organizations.ts';
import type { SessionRepository } from './sessions.ts';
import type { StoreRepository } from './stores.ts';
import type { UserRepository } from './users.ts';
import type { VisitorIdentityRepository } from './visitor-identities.ts';
import type { VisualizationRepository } from './visualizations.ts';
import type { WebhookEndpointRepository } from './webhook-endpoints.ts';
import type { WidgetRepository } from './widgets.ts';

export type * from './api-keys.ts';
export type * from './conversions.ts';
export type * from './credits.ts';
export type * from './deliveries.ts';
export type * from './events.ts';
export type * from './generations.ts';
export type * from './idempotency-keys.ts';
export type * from './jobs.ts';
export type * from './organizations.ts';
export type * from './sessions.ts';
export type * from './stores.ts';
export type * from './users.ts';
export type * from './visitor-identities.ts';
export type * from './visualizations.ts';
export type * from './webhook-endpoints.ts';
export type * from './widgets.ts';

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
  users: UserRepository;
  sessions: SessionRepository;
}

export interface MigrationReport {
  applied: string[];
}

/** What an adapter's database can do, declared so the core never asks which engine it is. */
export interface PersistenceCapabilities {
  /**
   * The database lives with this process's host (a file, say), so `serve` keeps its schema
   * current itself. False for a shared server, whose schema is migrated on purpose
   * (`visualizer migrate`) before new code starts.
   */
  readonly embedded: boolean;
}

export interface Persistence extends Repositories {
  readonly capabilities: PersistenceCapabilities;
  /** Runs `work` in one transaction; repositories passed to it commit together. Rolls back if it throws. */
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
  /** Applies pending migrations under a lock, so concurrent starters do not race. */
  migrate(): Promise<MigrationReport>;
  /** Names of migrations not yet applied; empty when the schema is current. */
  pendingMigrations(): Promise<string[]>;
  /**
   * Calls `listener` soon after any process commits a job. Absent where the database cannot
   * signal other processes; workers then fall back to polling.
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
