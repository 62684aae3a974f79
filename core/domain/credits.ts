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

/** A grant or debit to apply, with the id of the ledger entry that records it. */
export interface CreditChange {
  organizationId: string;
  amount: number;
  reason: string;
  reference?: string | null;
  ledgerEntryId: string;
  at: number;
}
