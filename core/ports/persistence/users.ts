import type { StoredUser, User, UserRole, UserToken } from '../../domain/accounts.ts';

export interface UserRepository {
  /** Fails with the adapter's unique-violation error when the email is taken (in any organization). */
  create(user: StoredUser): Promise<User>;
  get(organizationId: string, id: string): Promise<User | null>;
  /** By normalized email, with the password hash, whatever the organization: for sign-in. */
  findByEmail(email: string): Promise<StoredUser | null>;
  /** Oldest first (the first admin leads); `startingAfter` is the id of the previous page's last user. */
  list(
    organizationId: string,
    options: { limit: number; startingAfter?: string },
  ): Promise<{ data: User[]; hasMore: boolean }>;
  /** Admins of the organization who have signed in (`activatedAt` set): those who can sign in again. */
  countActiveAdmins(organizationId: string): Promise<number>;
  /**
   * Inside a transaction: holds back every other transaction that locks the same organization's
   * team until this one ends, so a rule over the whole team (keep one admin) holds under races.
   */
  lockTeam(organizationId: string): Promise<void>;
  setRole(organizationId: string, id: string, role: UserRole): Promise<User | null>;
  setPassword(id: string, passwordHash: string, at: number): Promise<void>;
  /** Sets `activatedAt` to `at` unless it is set already: the first sign-in is the one recorded. */
  markActivated(id: string, at: number): Promise<void>;
  /** Deletes the user with their tokens and sessions; false when the organization has no such user. */
  remove(organizationId: string, id: string): Promise<boolean>;

  createToken(token: UserToken): Promise<void>;
  /** The token whose hash matches, used or not, expired or not: the caller decides. */
  findToken(tokenHash: string): Promise<UserToken | null>;
  /** Marks the token used; false when it was already used (so a link works once, however many race). */
  useToken(id: string, at: number): Promise<boolean>;
  /** The unused, unexpired `set_password` token of each of these users, newest per user: for listing invitations. */
  pendingInvitations(organizationId: string, userIds: string[], now: number): Promise<UserToken[]>;
}
