import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { tenantService } from '../../core/services/tenants.ts';
import type { Persistence } from '../plugin.ts';
import type { PersistenceDatabase } from './database.ts';
import { testIds } from './ids.ts';
import { persistenceAccountsContract } from './persistence-accounts.ts';
import { persistenceAttributionContract } from './persistence-attribution.ts';
import type { PersistenceSuiteContext } from './persistence-context.ts';
import { persistenceDeliveryContract } from './persistence-delivery.ts';
import { persistenceGenerationsContract } from './persistence-generations.ts';
import { persistenceRetentionContract } from './persistence-retention.ts';
import { persistenceTenancyContract } from './persistence-tenancy.ts';
import { persistenceVisitorsContract } from './persistence-visitors.ts';

export interface PersistenceContractOptions<Database extends PersistenceDatabase = PersistenceDatabase> {
  name: string;
  /** A fresh, empty database (nothing migrated); the suite opens several handles on it. */
  create(): Database | Promise<Database>;
  /** Removes the database; called once after the suite, when every handle is closed. */
  dispose?(database: Database): void | Promise<void>;
  /**
   * An error as the adapter's driver throws it when the database cannot be reached or is too busy
   * to answer (connection refused, a lock wait that timed out): `isUnavailable` must recognise it.
   */
  unavailableError(): Error;
  /**
   * Whether the database lives with the process (a file: `serve` migrates it itself) rather than
   * on a shared server (migrated on purpose); the adapter must declare the same in `capabilities`.
   */
  embedded: boolean;
}

const clock = { now: () => Date.now() };

/**
 * The persistence contract. Every adapter, the project's or a third party's, runs this same suite
 * against a real database of its kind: the port's own cases here (migrations, capabilities,
 * transactions, errors), then each group of repositories' suite, all on one database.
 */
export function persistenceContract<Database extends PersistenceDatabase>(
  options: PersistenceContractOptions<Database>,
) {
  describe(`persistence contract: ${options.name}`, () => {
    let database: Database | undefined;
    let store: Persistence;
    const handles: Persistence[] = [];
    const open = () => {
      const handle = database!.open();
      handles.push(handle);
      return handle;
    };
    const tenants = () => tenantService({ persistence: store, ids: testIds, clock });

    before(async () => {
      database = await options.create();
      store = open();
    });
    after(async () => {
      for (const handle of handles) await handle.close();
      if (database) await options.dispose?.(database);
    });

    it('migrates an empty database, concurrently from two handles, exactly once', async () => {
      const all = await store.pendingMigrations();
      assert.ok(all.length >= 2, 'a new database has every migration pending');
      const second = open();
      const [first, other] = await Promise.all([store.migrate(), second.migrate()]);
      assert.deepEqual(
        [...first.applied, ...other.applied].sort(),
        [...all].sort(),
        'each migration ran once between the two',
      );
      assert.deepEqual(await store.pendingMigrations(), []);
      assert.deepEqual((await store.migrate()).applied, [], 'migrating again does nothing');
      await store.ping();
    });

    it(`declares itself ${options.embedded ? 'embedded' : 'a shared server'} in its capabilities`, () => {
      assert.equal(store.capabilities.embedded, options.embedded);
    });

    it('does not call a broken statement or a violated constraint "unavailable" (that would be a 503 for a bug)', async () => {
      const created = await tenants().createOrganization({ name: 'Twice', credits: 0 });
      const duplicate = await store.organizations
        .create({ id: created.organization.id, name: 'Again', createdAt: 0 })
        .then(
          () => assert.fail('a second organization with the same id was stored'),
          (error: unknown) => error,
        );
      assert.equal(store.isUnavailable(duplicate), false);
      assert.equal(store.isUnavailable(new Error('boom')), false);
      assert.equal(store.isUnavailable(null), false);
      // What the driver throws while its database is away, also when wrapped as a cause.
      assert.equal(store.isUnavailable(options.unavailableError()), true);
      assert.equal(store.isUnavailable(new Error('query failed', { cause: options.unavailableError() })), true);
    });

    it('rolls a transaction back when its work throws', async () => {
      const id = testIds.id('org_');
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.organizations.create({ id, name: 'Ghost', createdAt: Date.now() });
          throw new Error('changed my mind');
        }),
        /changed my mind/,
      );
      assert.equal(await store.organizations.get(id), null);
    });

    it('keeps transactions started together apart: one that throws takes none of the others with it', async () => {
      const orgIds = Array.from({ length: 8 }, () => testIds.id('org_'));
      const settled = await Promise.allSettled(
        orgIds.map((id, index) =>
          store.transaction(async (tx) => {
            await tx.organizations.create({ id, name: `Batch ${index}`, createdAt: Date.now() });
            if (index % 3 === 0) throw new Error(`transaction ${index} failed`);
            return index;
          }),
        ),
      );
      assert.deepEqual(
        settled.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : (outcome.reason as Error).message)),
        ['transaction 0 failed', 1, 2, 'transaction 3 failed', 4, 5, 'transaction 6 failed', 7],
      );
      // Resolved means committed: another handle sees the rows at once.
      const other = open();
      const stored = await Promise.all(orgIds.map((id) => other.organizations.get(id)));
      assert.deepEqual(
        stored.map((organization) => organization !== null),
        [false, true, true, false, true, true, false, true],
      );
    });

    // The repositories by group (core/ports/persistence/index.ts), each group's suite in a file of its own.
    const context: PersistenceSuiteContext = { store: () => store, open, tenants };
    persistenceTenancyContract(context);
    persistenceGenerationsContract(context);
    persistenceDeliveryContract(context);
    persistenceAccountsContract(context);
    persistenceAttributionContract(context);
    persistenceRetentionContract(context);
    persistenceVisitorsContract(context);
  });
}
