import type { Persistence, PostgresConnection, Repositories } from '../../kit/plugin.ts';

/** pg-boss's database interface (its `db` option): one SQL text with positional values. */
export interface BossDb {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
}

/** The Postgres capability of a transaction or connection of the store; other databases have none. */
export function postgresOf(repositories: Repositories): PostgresConnection {
  if (!repositories.postgres)
    throw new Error('the pgboss queue needs the postgres persistence plugin (its transactions expose SQL)');
  return repositories.postgres;
}

/** pg-boss writing through one transaction of ours: what commits with a domain write. */
export const inTransaction = (tx: Repositories): BossDb => {
  const sql = postgresOf(tx);
  return { executeSql: (text, values) => sql.query(text, values ?? []) };
};

/** pg-boss's `locked()` plans: `BEGIN; SET LOCAL …; advisory xact lock; …; COMMIT;` sent as one text. */
const wholeTransaction = /^\s*BEGIN;([\s\S]*);\s*COMMIT;\s*$/;

/**
 * pg-boss on the store's own pool, so it follows the store's connection (direct or through
 * PgBouncer) and needs no pool of its own. A plan that is a whole transaction (schema creation,
 * migrations, maintenance) runs inside one of the store's transactions instead: should a
 * statement fail, that transaction is rolled back, where a failed multi-statement text would
 * leave its pooled connection inside an aborted transaction. Its advisory lock is
 * transaction-scoped, so it holds through PgBouncer in transaction mode.
 */
export function onPool(persistence: Persistence): BossDb {
  const sql = postgresOf(persistence);
  return {
    async executeSql(text, values) {
      const whole = values?.length ? null : wholeTransaction.exec(text);
      if (whole) return persistence.transaction((tx) => postgresOf(tx).query(whole[1]!, []));
      return sql.query(text, values ?? []);
    },
  };
}
