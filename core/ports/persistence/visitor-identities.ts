import type { VisitorIdentity } from '../../domain/visitor-identity.ts';

export interface VisitorIdentityRepository {
  /** One row per (storeId, visitorId): a later identify replaces user id, traits and session, keeps `createdAt`. */
  upsert(identity: VisitorIdentity): Promise<void>;
  get(storeId: string, visitorId: string): Promise<VisitorIdentity | null>;
  /** Distinct visitor ids identified (created or updated) in [from, to). */
  visitorsSeen(storeId: string, range: { from: number; to: number }): Promise<string[]>;
}
