/**
 * Persistence port: the repositories the core reads and writes through, one file per aggregate,
 * gathered in groups by owner (below). The guarantees an adapter gives are on `Persistence` (what
 * an editor shows on hover).
 */
import type { ApiKeyRepository } from './api-keys.ts';
import type { ConversionRepository } from './conversions.ts';
import type { CreditRepository } from './credits.ts';
import type { DeliveryRepository } from './deliveries.ts';
import type { EventRepository } from './events.ts';
import type { GenerationRepository } from './generations.ts';
import type { IdempotencyRepository } from './idempotency-keys.ts';
import type { OrganizationRepository } from './organizations.ts';
import type { PostgresConnection } from './postgres.ts';
import type { RetentionRepository } from './retention.ts';
import type { SessionRepository } from './sessions.ts';
import type { StoreRepository } from './stores.ts';
import type { UserRepository } from './users.ts';
import type { VisitorIdentityRepository } from './visitor-identities.ts';
import type { VisitorDataRepository, VisitorErasureRepository } from './visitors.ts';
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
export type * from './organizations.ts';
export type * from './postgres.ts';
export type * from './retention.ts';
export type * from './sessions.ts';
export type * from './stores.ts';
export type * from './users.ts';
export type * from './visitor-identities.ts';
export type * from './visitors.ts';
export type * from './visualizations.ts';
export type * from './webhook-endpoints.ts';
export type * from './widgets.ts';

/*
 * The repositories in groups, by who owns and uses them (core/services). A group's repositories
 * change together and are tested together: each group has its own contract suite in kit/testing
 * (`persistence-<group>.ts`), which `persistenceContract` runs on one database.
 */

/** Tenancy: who the API's customers are and what they may spend (tenants, authentication, billing). */
export interface TenancyRepositories {
  organizations: OrganizationRepository;
  stores: StoreRepository;
  apiKeys: ApiKeyRepository;
  /** The balance never goes below zero: `debit` is one atomic check-and-set. */
  credits: CreditRepository;
}

/** Dashboard accounts: the people who sign in to the dashboard, and their sessions. */
export interface AccountRepositories {
  users: UserRepository;
  sessions: SessionRepository;
}

/**
 * Generations: what creating and rendering one reads and writes in its transaction — the record,
 * the idempotency key that replays it, and the widget whose day it counts against.
 */
export interface GenerationRepositories {
  generations: GenerationRepository;
  idempotencyKeys: IdempotencyRepository;
  widgets: WidgetRepository;
}

/** Delivery: the outbox events, the endpoints they are sent to and each delivery's attempts. */
export interface DeliveryRepositories {
  events: EventRepository;
  webhookEndpoints: WebhookEndpointRepository;
  deliveries: DeliveryRepository;
}

/** Attribution: the orders a shop reports, and the visualizations and identities they are attributed by. */
export interface AttributionRepositories {
  conversions: ConversionRepository;
  visualizations: VisualizationRepository;
  visitorIdentities: VisitorIdentityRepository;
}

/** Visitors' privacy: a widget visitor's data across the organization, and the steps that erase it. */
export interface VisitorRepositories {
  visitorData: VisitorDataRepository;
  visitorErasures: VisitorErasureRepository;
}

/** Retention: pruning by age, across the other groups' tables, in bounded batches. */
export interface RetentionRepositories {
  retention: RetentionRepository;
}

/** The store's Postgres capability, apart from the repositories. */
export interface PostgresCapability {
  /**
   * Raw SQL on this connection or transaction (see `PostgresConnection`): present only where the
   * database is Postgres, for a queue engine keeping its own tables there.
   */
  postgres?: PostgresConnection;
}

/** The Kysely store's capability, apart from the repositories. */
export interface KyselyCapability {
  /**
   * This connection or transaction's Kysely executor, opaque to the core: for a plugin built on
   * the Kysely store's library (plugins/store-kysely/library.ts) that keeps tables of its own in
   * the same database, written in the same transaction (the queue's tables). Present only on the
   * Kysely store.
   */
  readonly kysely?: unknown;
}

/**
 * The repositories, all bound to one connection or transaction: every group's, and the store's
 * capabilities. The queue's tables (jobs, dead letters, schedules, processes) are not here: they
 * belong to the queue plugins (core/ports/queue-tables, reached through `JobQueue`).
 */
export interface Repositories
  extends TenancyRepositories,
    AccountRepositories,
    GenerationRepositories,
    DeliveryRepositories,
    AttributionRepositories,
    VisitorRepositories,
    RetentionRepositories,
    PostgresCapability,
    KyselyCapability {}

/** One connection pool at a moment. */
export interface PoolStats {
  /** Which pool (`main`, or e.g. `direct` beside a pooler). */
  name: string;
  /** Connections open, idle or in use. */
  total: number;
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
  /** The most connections the pool opens. */
  max: number;
}

export interface MigrationReport {
  applied: string[];
  /** Indexes a migration deferred to build outside its transaction (`index <name>`, Postgres), built by this run. */
  indexesBuilt?: string[];
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

/**
 * The repositories the core reads and writes through, and their transactions.
 *
 * An adapter must guarantee:
 * - Durability: a call that resolved is committed (it survives a crash of the process).
 * - Atomicity: everything done inside one `transaction()` commits together or not at all.
 * - Tenancy: every lookup that takes an `organizationId` returns nothing that belongs to
 *   another organization, so a caller cannot reach a foreign row by guessing its id.
 * - Credits never go below zero, however many debits race (`debit` is one atomic check-and-set).
 * - A widget's day never counts past its caps, however many generations race (`widgets.countGeneration`
 *   is one atomic check-and-set too).
 * - Timestamps are integers in epoch milliseconds; money and credits are integers.
 */
export interface Persistence extends Repositories {
  readonly capabilities: PersistenceCapabilities;
  /**
   * Runs `work` in one transaction; repositories passed to it commit together. Rolls back if it throws.
   * `tx` may make its repositories on first use (getters), so a wrapper derives from it
   * (`Object.create(tx, …)`) rather than spreading it.
   */
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
  /** Applies pending migrations under a lock, so concurrent starters do not race. */
  migrate(): Promise<MigrationReport>;
  /** Names of migrations not yet applied; empty when the schema is current. */
  pendingMigrations(): Promise<string[]>;
  /**
   * Calls `listener` soon after any process commits a job, with the job's kind (none when jobs of
   * any kind may have been missed, after a lost connection). Absent where the database cannot
   * signal other processes (or has no session to listen on); workers then fall back to polling.
   */
  listenForJobs?(listener: (kind?: string) => void): Promise<() => Promise<void>>;
  /** The connection pools' usage now, for metrics; absent where there is no pool (SQLite). */
  poolStats?(): PoolStats[];
  /**
   * How many connections the database server accepts from this role on this database in all: the
   * least of `max_connections` less its reserved slots, the role's and the database's connection
   * limits (a superuser's: `max_connections`). Undefined behind a transaction-mode pooler (the pooler, not the server, counts our
   * connections) and absent where there is no server (SQLite). Startup compares it with what the
   * processes' pools may open together.
   */
  connectionLimit?(): Promise<number | undefined>;
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
