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

/** The repositories, all bound to one connection or transaction. */
export interface Repositories {
  organizations: OrganizationRepository;
  stores: StoreRepository;
  apiKeys: ApiKeyRepository;
  credits: CreditRepository;
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
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
