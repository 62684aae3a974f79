import type { Kysely } from 'kysely';
import { CompiledQuery, sql, Migrator } from './kysely.ts';
import type { Persistence, Repositories } from '../../kit/plugin.ts';
import type { Dialect } from './dialect.ts';
import type { Database, Executor } from './database.ts';
import { migrationProvider } from './migrations/index.ts';
import { buildDeferredIndexes, pendingDeferredIndexes } from './migrations/create-index-concurrently.ts';
import { keyCache, type KeyCache } from './key-cache.ts';
import { apiKeyRepository, type StoredApiKey } from './repositories/api-keys.ts';
import { conversionRepository } from './repositories/conversions.ts';
import { creditRepository } from './repositories/credits.ts';
import { deliveryRepository } from './repositories/deliveries.ts';
import { eventRepository } from './repositories/events.ts';
import { generationRepository } from './repositories/generations.ts';
import { idempotencyRepository } from './repositories/idempotency-keys.ts';
import { organizationRepository } from './repositories/organizations.ts';
import { retentionRepository } from './repositories/retention.ts';
import { sessionRepository } from './repositories/sessions.ts';
import { storeRepository } from './repositories/stores.ts';
import { userRepository } from './repositories/users.ts';
import { visitorIdentityRepository } from './repositories/visitor-identities.ts';
import { visitorDataRepository, visitorErasureRepository } from './repositories/visitors.ts';
import { visualizationRepository } from './repositories/visualizations.ts';
import { webhookEndpointRepository } from './repositories/webhook-endpoints.ts';
import { widgetRepository } from './repositories/widgets.ts';

/** What a repository is made on: the database or one transaction, and the key cache (the database's only). */
interface RepositoryContext {
  db: Executor;
  dialect: Dialect;
  keys?: KeyCache<StoredApiKey>;
}

/** How each repository is made; `all` gives the others made on the same executor. */
const factories: {
  [Name in keyof Repositories]-?: (context: RepositoryContext, all: Repositories) => Repositories[Name];
} = {
  organizations: ({ db }) => organizationRepository(db),
  stores: ({ db }) => storeRepository(db),
  apiKeys: ({ db, dialect, keys }) => apiKeyRepository(db, dialect, keys),
  credits: ({ db, dialect }) => creditRepository(db, dialect),
  generations: ({ db, dialect }) => generationRepository(db, dialect),
  idempotencyKeys: ({ db, dialect }) => idempotencyRepository(db, dialect),
  events: ({ db, dialect }) => eventRepository(db, dialect),
  webhookEndpoints: ({ db, dialect }) => webhookEndpointRepository(db, dialect),
  deliveries: ({ db, dialect }) => deliveryRepository(db, dialect),
  conversions: ({ db, dialect }) => conversionRepository(db, dialect),
  visualizations: ({ db }) => visualizationRepository(db),
  widgets: ({ db }, all) => widgetRepository(db, all.generations.get),
  visitorIdentities: ({ db }) => visitorIdentityRepository(db),
  visitorData: ({ db, dialect }) => visitorDataRepository(db, dialect),
  visitorErasures: ({ db, dialect }) => visitorErasureRepository(db, dialect),
  users: ({ db }) => userRepository(db),
  sessions: ({ db, dialect }) => sessionRepository(db, dialect),
  retention: ({ db }) => retentionRepository(db),
  // The Kysely capability: this executor, for a plugin keeping tables of its own here (library.ts).
  kysely: ({ db, dialect }) => ({ db, dialect }),
  // The Postgres capability: raw SQL on the same connection or transaction, for a queue engine
  // with its own tables (pg-boss).
  postgres: ({ db, dialect }) =>
    dialect === 'postgres'
      ? {
          query: (text: string, values: unknown[] = []) =>
            db.executeQuery(CompiledQuery.raw(text, values)) as Promise<{ rows: any[] }>,
        }
      : undefined,
};

const contextOf = Symbol('repository context');

/**
 * Repositories whose getters make each one the first time it is asked for, then keep it: a
 * transaction uses two or three of them, and making all twenty cost more Node CPU than a create's
 * own statements (docs/benchmarks.md). The getters live on one shared prototype.
 */
const lazyRepositories: object = Object.create(null);
for (const name of Object.keys(factories) as Array<keyof Repositories>) {
  Object.defineProperty(lazyRepositories, name, {
    enumerable: true,
    get(this: Repositories & { [contextOf]: RepositoryContext }) {
      const value = factories[name](this[contextOf], this);
      Object.defineProperty(this, name, { value, enumerable: true });
      return value;
    },
  });
}

function repositories(db: Executor, dialect: Dialect, keys?: KeyCache<StoredApiKey>): Repositories {
  return Object.create(lazyRepositories, { [contextOf]: { value: { db, dialect, keys } } }) as Repositories;
}

/** Every repository made now, as own properties (the persistence object's, made once). */
const allMade = (lazy: Repositories): Repositories =>
  Object.fromEntries(
    Object.keys(factories).map((name) => [name, lazy[name as keyof Repositories]]),
  ) as unknown as Repositories;

type RunTransaction = <T>(work: (tx: Executor) => Promise<T>) => Promise<T>;

/** The error and its causes, outermost first (drivers and Kysely wrap each other's errors). */
function* causes(error: unknown): Generator<unknown> {
  for (let depth = 0; error != null && depth < 8; depth++) {
    yield error;
    error = (error as { cause?: unknown }).cause;
  }
}

/**
 * The persistence port on any Kysely dialect; the dialect plugins build the `Kysely` instance and
 * may choose how transactions run (SQLite group-commits them, see group-commit.ts); by default
 * each is its own, side by side on the pool.
 */
export function kyselyPersistence(
  db: Kysely<Database>,
  dialect: Dialect,
  options: {
    transaction?: RunTransaction;
    /** The dialect's reading of one error (not its causes): see Persistence.isUnavailable. */
    unavailable: (error: unknown) => boolean;
    /**
     * A value that changes whenever another connection commits (SQLite's `PRAGMA data_version`).
     * Given one, API keys are cached between lookups (key-cache.ts); without, every lookup reads.
     */
    changeMarker?: () => unknown;
    /**
     * Runs `migrate` on a database handle of its own choosing: one with real sessions (its lock
     * and index builds need them) when `db` is behind a transaction-mode pooler (postgres.ts).
     */
    migrateOn?: <T>(work: (db: Kysely<Database>) => Promise<T>) => Promise<T>;
  },
): Persistence {
  const migrator = (on: Kysely<Database> = db) => new Migrator({ db: on, provider: migrationProvider });
  const migrateOn = options.migrateOn ?? ((work) => work(db));
  const keys = options.changeMarker ? keyCache<StoredApiKey>(options.changeMarker) : undefined;
  const bound = new WeakMap<Executor, Repositories>();
  const repositoriesOf = (tx: Executor) => {
    let found = bound.get(tx);
    if (!found) bound.set(tx, (found = repositories(tx, dialect, keys)));
    return found;
  };
  const transaction: RunTransaction = options.transaction ?? ((work) => db.transaction().execute(work));
  return {
    // A file beside the process keeps its schema current at startup; a server is migrated on purpose.
    capabilities: { embedded: dialect === 'sqlite' },
    ...allMade(repositories(db, dialect, keys)),
    // The units of one group commit share a transaction, and so its repositories.
    transaction: (work) => transaction((tx) => work(repositoriesOf(tx))),
    migrate: () =>
      migrateOn(async (db) => {
        // The Migrator runs all pending migrations in one transaction under a lock: a Postgres
        // advisory lock, or SQLite's write lock taken by BEGIN IMMEDIATE (see sqlite.ts).
        const { error, results } = await migrator(db).migrateToLatest();
        if (error) {
          const failed = results?.find((result) => result.status === 'Error')?.migrationName;
          throw new Error(`Migration ${failed ?? ''} failed: ${(error as Error).message ?? error}`, { cause: error });
        }
        // Indexes built concurrently cannot be built in the Migrator's transaction: after it commits.
        return {
          applied: (results ?? []).map((result) => result.migrationName),
          indexesBuilt: await buildDeferredIndexes(db),
        };
      }),
    async pendingMigrations() {
      const migrations = await migrator().getMigrations();
      return [
        ...migrations.filter((migration) => !migration.executedAt).map((migration) => migration.name),
        ...(await pendingDeferredIndexes(db)).map((name) => `index ${name}`),
      ];
    },
    async ping() {
      await sql`select 1`.execute(db);
    },
    isUnavailable: (error) => [...causes(error)].some(options.unavailable),
    close: () => db.destroy(),
  };
}
