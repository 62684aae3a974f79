import type { CreditChange, CreditLedgerEntry } from '../../domain/credits.ts';

export interface CreditRepository {
  /** Adds credits and writes the ledger entry. Returns the new balance. */
  grant(change: CreditChange): Promise<number>;
  /**
   * Takes credits only if the balance covers them, and writes the ledger entry.
   * Returns the new balance, or null (and changes nothing) when the balance is short.
   */
  debit(change: CreditChange): Promise<number | null>;
  /**
   * Newest first, in the order the entries were written (which chains their balances);
   * `startingAfter` is the id of the previous page's last entry.
   */
  ledger(
    organizationId: string,
    options: { limit: number; startingAfter?: string },
  ): Promise<{ data: CreditLedgerEntry[]; hasMore: boolean }>;
}
