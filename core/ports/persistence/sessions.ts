import type { Session } from '../../domain/accounts.ts';

export interface SessionRepository {
  create(session: Session): Promise<void>;
  /** The session whose token hash matches, revoked or expired or not: the caller decides. */
  findByHash(tokenHash: string): Promise<Session | null>;
  get(organizationId: string, id: string): Promise<Session | null>;
  /** A user's sessions that are neither revoked nor expired at `now`, newest first, `limit` at most. */
  listActive(organizationId: string, userId: string, now: number, limit: number): Promise<Session[]>;
  touch(id: string, at: number): Promise<void>;
  /** Revokes one session; false when the organization has no such active session. */
  revoke(organizationId: string, id: string, at: number): Promise<boolean>;
  /** Revokes every session of a user (after a password change or removal); returns how many. */
  revokeAllForUser(userId: string, at: number): Promise<number>;
}
