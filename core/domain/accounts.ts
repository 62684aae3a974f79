/**
 * Dashboard accounts: people who sign in to an organization's dashboard. A user belongs to one
 * organization; an email address is unique across the service, so signing in needs no
 * organization id.
 */

/** `admin` manages keys, webhook endpoints, widgets and the team; `viewer` reads only. */
export type UserRole = 'admin' | 'viewer';
export const userRoles: readonly UserRole[] = ['admin', 'viewer'];

export interface User {
  id: string;
  organizationId: string;
  /** Lower-cased and trimmed. */
  email: string;
  role: UserRole;
  /** Null until the user has set a password through an invitation (or a reset link). */
  passwordSetAt: number | null;
  /**
   * When the user first signed in, by setting a password through an invitation or by a sign-in
   * link (the development admin's). Null until then: such a user is "invited" and cannot sign in
   * yet, so does not count as one of the organization's admins (`last_admin`).
   */
  activatedAt: number | null;
  createdAt: number;
}

/** A user with the password's hash, for sign-in only. */
export interface StoredUser extends User {
  passwordHash: string | null;
}

/**
 * What a one-time link does: `set_password` (an invitation, or a reset) lets the holder choose a
 * password and signs them in; `sign_in` signs them in directly (the development admin's link).
 */
export type UserTokenPurpose = 'set_password' | 'sign_in';

export interface UserToken {
  id: string;
  userId: string;
  organizationId: string;
  purpose: UserTokenPurpose;
  /** SHA-256 (hex) of the token; the token itself is only ever in the link. */
  tokenHash: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

export interface Session {
  id: string;
  userId: string;
  organizationId: string;
  /** SHA-256 (hex) of the cookie's token. */
  tokenHash: string;
  createdAt: number;
  lastSeenAt: number;
  /** The session ends at this time at the latest, however active. */
  expiresAt: number;
  revokedAt: number | null;
  /** The browser's User-Agent when it signed in, truncated; shown so people can tell sessions apart. */
  userAgent: string | null;
  /** The address it signed in from. */
  ipAddress: string | null;
}

export const normalizeEmail = (email: string) => email.trim().toLowerCase();
