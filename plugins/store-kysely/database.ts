import type { Kysely, Transaction } from 'kysely';

/** Row shapes as stored. Later capabilities add their tables here as they start using them. */
export interface Database {
  organizations: { id: string; name: string; credit_balance: number; created_at: number };
  stores: { id: string; organization_id: string; name: string; attribution_window_days: number; created_at: number };
  api_keys: {
    id: string;
    organization_id: string;
    kind: string;
    name: string | null;
    display_prefix: string;
    key_hash: string;
    created_at: number;
    revoked_at: number | null;
    last_used_at: number | null;
  };
  credit_ledger: {
    id: string;
    organization_id: string;
    delta: number;
    balance_after: number;
    reason: string;
    reference: string | null;
    created_at: number;
  };
}

/** A connection pool or a transaction: repositories work the same on either. */
export type Executor = Kysely<Database> | Transaction<Database>;
