import type { Kysely } from 'kysely';
import { sql } from '../kysely.ts';
import type { CreditChange, CreditLedgerEntry, CreditRepository } from '../../../kit/plugin.ts';
import type { Dialect } from '../dialect.ts';
import type { Database, Executor } from '../database.ts';
import { prepared, preparedInsert } from '../prepared.ts';

type BalanceChange = { organizationId: string; delta: number };
const addToBalance = prepared((db, values: BalanceChange) =>
  db
    .updateTable('organizations')
    .set({ credit_balance: sql`credit_balance + ${values.delta}` })
    .where('id', '=', values.organizationId)
    .returning('credit_balance'),
);
/** The same, only where the balance covers the debit: one statement both checks and changes it. */
const debitCovered = prepared((db, values: BalanceChange & { cover: number }) =>
  db
    .updateTable('organizations')
    .set({ credit_balance: sql`credit_balance + ${values.delta}` })
    .where('id', '=', values.organizationId)
    .where('credit_balance', '>=', values.cover)
    .returning('credit_balance'),
);
const insertEntry = preparedInsert('credit_ledger');

const toEntry = (row: Database['credit_ledger']): CreditLedgerEntry => ({
  id: row.id,
  organizationId: row.organization_id,
  delta: Number(row.delta),
  balanceAfter: Number(row.balance_after),
  reason: row.reason,
  reference: row.reference,
  createdAt: Number(row.created_at),
});

export function creditRepository(db: Executor, dialect: Dialect): CreditRepository {
  /**
   * One statement both checks and changes the balance, so concurrent debits cannot overdraw:
   * the row lock (Postgres) or the write lock (SQLite) orders them, and each sees the last result.
   */
  async function apply(change: CreditChange, delta: number, requireCover: boolean): Promise<number | null> {
    // The balance and its ledger entry must commit together, even when the caller gave no transaction.
    return db.isTransaction
      ? applyIn(db, change, delta, requireCover)
      : (db as Kysely<Database>).transaction().execute((tx) => applyIn(tx, change, delta, requireCover));
  }

  async function applyIn(
    db: Executor,
    change: CreditChange,
    delta: number,
    requireCover: boolean,
  ): Promise<number | null> {
    const { organizationId } = change;
    const updated = requireCover
      ? await debitCovered(db, dialect, { organizationId, delta, cover: -delta })
      : await addToBalance(db, dialect, { organizationId, delta });
    const [row] = updated.rows;
    if (!row) return null;
    const balanceAfter = Number(row.credit_balance);
    await insertEntry(db, dialect, {
      id: change.ledgerEntryId,
      organization_id: organizationId,
      delta,
      balance_after: balanceAfter,
      reason: change.reason,
      reference: change.reference ?? null,
      created_at: change.at,
    });
    return balanceAfter;
  }

  return {
    async grant(change) {
      const balance = await apply(change, change.amount, false);
      if (balance === null) throw new Error(`No organization '${change.organizationId}' to grant credits to.`);
      return balance;
    },
    debit: (change) => apply(change, -change.amount, true),
    async ledger(organizationId, { limit, startingAfter }) {
      let query = db.selectFrom('credit_ledger').selectAll().where('organization_id', '=', organizationId);
      if (startingAfter) {
        // The cursor is an entry of this organization, or the page is empty (as for other lists).
        const cursor = await db
          .selectFrom('credit_ledger')
          .select('seq')
          .where('id', '=', startingAfter)
          .where('organization_id', '=', organizationId)
          .executeTakeFirst();
        if (!cursor) return { data: [], hasMore: false };
        query = query.where('seq', '<', cursor.seq!);
      }
      // Newest first by the order of writing, which chains the balances; times may be out of order.
      const rows = await query
        .orderBy('seq', 'desc')
        .limit(limit + 1)
        .execute();
      return { data: rows.slice(0, limit).map(toEntry), hasMore: rows.length > limit };
    },
  };
}
