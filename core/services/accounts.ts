import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { Config } from '../../config/schema.ts';
import type { Ports } from '../ports/index.ts';
import {
  normalizeEmail,
  userRoles,
  type Session,
  type User,
  type UserRole,
  type UserTokenPurpose,
} from '../domain/accounts.ts';
import { hashKey } from '../domain/api-keys.ts';
import { ApiError, notFound } from '../domain/errors.ts';
import type { Organization } from '../domain/organization.ts';
import type { Repositories } from '../ports/persistence/index.ts';

const minute = 60_000;
const day = 24 * 60 * minute;

/** How long an invitation's link (and any `set_password` link) can be used. */
export const invitationLifetimeMs = 7 * day;
/** How long a sign-in link can be used: it signs in without a password, so briefly. */
export const signInLinkLifetimeMs = 15 * minute;
/** A session unused this long has ended. */
export const sessionIdleMs = 7 * day;
/** A session ends this long after sign-in, however active. */
export const sessionLifetimeMs = 30 * day;
/** `lastSeenAt` is written at most this often, so browsing does not write on every request. */
export const sessionTouchIntervalMs = minute;

/** How many of a user's sessions `GET /v1/sessions` lists, newest first. */
export const sessionListLimit = 100;

export const passwordMinLength = 10;
export const passwordMaxLength = 256;

/** 32 base62 characters (about 190 bits), as API keys. */
const tokenLength = 32;
const userAgentMaxLength = 256;
const ipAddressMaxLength = 64;

export interface ClientInfo {
  userAgent: string | null;
  ipAddress: string | null;
}
export interface SignedIn {
  session: Session;
  /** The session's token, for the cookie: shown once, stored only as a hash. */
  token: string;
  user: User;
  organization: Organization;
}
export interface IssuedLink {
  user: User;
  /** The link's token: shown once, stored only as a hash. */
  token: string;
  url: string;
  expiresAt: number;
}
export type ListedUser = User & { invitationExpiresAt: number | null };

// Passwords: scrypt (memory-hard) at N=2^15, r=8, p=1: about 32 MiB and some 50-100 ms per hash, on
// libuv's threadpool so the event loop keeps serving. The parameters are stored with each hash, so
// they can be raised later without invalidating existing passwords.
const scryptCost = { N: 2 ** 15, r: 8, p: 1 } as const;
const keyLength = 32;
const saltLength = 16;
const maxmemFor = (N: number, r: number, p: number) => 128 * N * r * p + 2 * 1024 * 1024;

function derive(password: string, salt: Buffer, N: number, r: number, p: number, length: number): Promise<Buffer> {
  const options: ScryptOptions = { N, r, p, maxmem: maxmemFor(N, r, p) };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** `scrypt$N$r$p$<salt b64>$<hash b64>`. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(saltLength);
  const { N, r, p } = scryptCost;
  const key = await derive(password, salt, N, r, p, keyLength);
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await derive(password, Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p), expected.length);
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * Stands in for the hash of an account that has none (unknown email, invited without a password),
 * so that sign-in runs one scrypt either way and its timing does not tell which accounts exist.
 */
let dummyPromise: Promise<string> | undefined;
const dummy = () => (dummyPromise ??= hashPassword(randomBytes(16).toString('base64')));

const invalidLink = () =>
  new ApiError(
    'invalid_request_error',
    'invalid_link',
    'This link is invalid, has expired or was already used. Ask an admin of your organization for a new one.',
    'token',
  );
const invalidCredentials = () =>
  new ApiError('authentication_error', 'invalid_credentials', 'Incorrect email or password.');
const sessionExpired = () =>
  new ApiError('authentication_error', 'session_expired', 'Your session has ended. Sign in again.');
const emailTaken = () =>
  new ApiError('conflict_error', 'email_taken', 'This email address already belongs to a user.', 'email');
const lastAdmin = () =>
  new ApiError(
    'conflict_error',
    'last_admin',
    'The organization must keep at least one admin who can sign in: one who has signed in before, with a password or a sign-in link. Make another such user admin first.',
    'role',
  );

/** An address with one `@`, something either side and no spaces; the invitation's link proves the rest. */
export function requireEmail(email: unknown): string {
  const normalized = typeof email === 'string' ? normalizeEmail(email) : '';
  if (normalized.length > 254 || !/^[^\s@]+@[^\s@]+$/.test(normalized)) {
    throw new ApiError('invalid_request_error', 'invalid_email', 'email must be an email address.', 'email');
  }
  return normalized;
}

function requireRole(role: unknown): UserRole {
  if (!userRoles.includes(role as UserRole))
    throw new ApiError(
      'invalid_request_error',
      'invalid_role',
      `role must be one of: ${userRoles.join(', ')}.`,
      'role',
    );
  return role as UserRole;
}

function requirePassword(password: unknown): string {
  const text = typeof password === 'string' ? password : '';
  if (text.length < passwordMinLength) {
    throw new ApiError(
      'invalid_request_error',
      'password_too_short',
      `The password must be at least ${passwordMinLength} characters.`,
      'password',
    );
  }
  if (text.length > passwordMaxLength) {
    throw new ApiError(
      'invalid_request_error',
      'password_too_long',
      `The password must be at most ${passwordMaxLength} characters.`,
      'password',
    );
  }
  return text;
}

const truncate = (value: string | null, length: number) => (value === null ? null : value.slice(0, length));

export type AccountService = ReturnType<typeof accountService>;

/**
 * Dashboard accounts: invitations, passwords, one-time links and sessions. Every link and session
 * token is random, shown once and stored as its SHA-256; every failure to sign in looks the same.
 */
export function accountService({
  persistence,
  ids,
  clock,
  config,
}: Pick<Ports, 'persistence' | 'ids' | 'clock'> & { config: Pick<Config, 'publicUrl'> }) {
  async function requireOrganization(repos: Repositories, organizationId: string) {
    const organization = await repos.organizations.get(organizationId);
    if (!organization) throw notFound('organization', organizationId, 'organizationId');
    return organization;
  }

  async function requireUser(repos: Repositories, organizationId: string, userId: string) {
    const user = await repos.users.get(organizationId, userId);
    if (!user) throw notFound('user', userId, 'userId');
    return user;
  }

  async function issueToken(repos: Repositories, user: User, purpose: UserTokenPurpose, lifetimeMs: number) {
    const token = ids.secret(tokenLength);
    const now = clock.now();
    const expiresAt = now + lifetimeMs;
    await repos.users.createToken({
      id: ids.id('utk_'),
      userId: user.id,
      organizationId: user.organizationId,
      purpose,
      tokenHash: hashKey(token),
      createdAt: now,
      expiresAt,
      usedAt: null,
    });
    const route = purpose === 'set_password' ? 'accept-invitation' : 'sign-in-link';
    // In the fragment, which browsers never send: the token stays out of server and proxy logs.
    return { user, token, url: `${config.publicUrl}/dashboard/#/${route}?token=${token}`, expiresAt };
  }

  async function startSession(repos: Repositories, user: User, client: ClientInfo): Promise<SignedIn> {
    const token = ids.secret(tokenLength);
    const now = clock.now();
    const session: Session = {
      id: ids.id('ses_'),
      userId: user.id,
      organizationId: user.organizationId,
      tokenHash: hashKey(token),
      createdAt: now,
      lastSeenAt: now,
      expiresAt: now + sessionLifetimeMs,
      revokedAt: null,
      userAgent: truncate(client.userAgent, userAgentMaxLength),
      ipAddress: truncate(client.ipAddress, ipAddressMaxLength),
    };
    await repos.sessions.create(session);
    const organization = await requireOrganization(repos, user.organizationId);
    return { session, token, user, organization };
  }

  /** The unused, unexpired link of this purpose for `token`, with its user; anything else is `invalid_link`. */
  async function openLink(repos: Repositories, token: unknown, purpose: UserTokenPurpose) {
    if (typeof token !== 'string' || token.length === 0 || token.length > 200) throw invalidLink();
    const found = await repos.users.findToken(hashKey(token));
    if (!found || found.purpose !== purpose || found.usedAt !== null || clock.now() >= found.expiresAt)
      throw invalidLink();
    const user = await repos.users.get(found.organizationId, found.userId);
    if (!user) throw invalidLink();
    // A set_password link from before the password was last set is void: once an invitation is
    // accepted, its other links no longer change the password.
    if (purpose === 'set_password' && user.passwordSetAt !== null && found.createdAt <= user.passwordSetAt)
      throw invalidLink();
    return { token: found, user };
  }

  /**
   * Makes `change` to `user`, then throws `last_admin` (rolling the transaction back) if the user was
   * an active admin (one who has signed in, with a password or a sign-in link) and the organization
   * is left without one. The team is locked first, so two admins demoting each other at once cannot
   * both succeed.
   */
  async function keepAnAdmin(repos: Repositories, user: User, change: () => Promise<unknown>) {
    await change();
    const wasActiveAdmin = user.role === 'admin' && user.activatedAt !== null;
    if (wasActiveAdmin && (await repos.users.countActiveAdmins(user.organizationId)) === 0) throw lastAdmin();
  }

  function requireActor(organizationId: string, actor: User) {
    if (actor.organizationId !== organizationId || actor.role !== 'admin') {
      throw new ApiError(
        'authorization_error',
        'insufficient_role',
        'Only an admin of the organization can manage its team.',
      );
    }
  }

  return {
    /**
     * A new user without a password and a `set_password` link valid 7 days. Inviting an email already
     * invited to the same organization issues a fresh link (with the role asked for now); the earlier
     * links stay valid until they expire or any one of them is used, which voids the others.
     */
    async invite(organizationId: string, input: { email: string; role: UserRole }): Promise<IssuedLink> {
      const email = requireEmail(input.email);
      const role = requireRole(input.role);
      const attempt = () =>
        persistence.transaction(async (repos) => {
          await requireOrganization(repos, organizationId);
          const existing = await repos.users.findByEmail(email);
          if (existing) {
            if (existing.organizationId !== organizationId || existing.activatedAt !== null) throw emailTaken();
            const { passwordHash: _, ...current } = existing;
            const user =
              current.role === role
                ? current
                : ((await repos.users.setRole(organizationId, current.id, role)) ?? current);
            return issueToken(repos, user, 'set_password', invitationLifetimeMs);
          }
          const user = await repos.users.create({
            id: ids.id('usr_'),
            organizationId,
            email,
            role,
            passwordHash: null,
            passwordSetAt: null,
            activatedAt: null,
            createdAt: clock.now(),
          });
          return issueToken(repos, user, 'set_password', invitationLifetimeMs);
        });
      try {
        return await attempt();
      } catch (error) {
        // Two invitations of one new address at once: the unique index refuses the second user.
        if (!(error instanceof ApiError) && (await persistence.users.findByEmail(email))) return attempt();
        throw error;
      }
    },

    /** Sets the password through an invitation's link (once), ends the user's other sessions and signs in. */
    async acceptInvitation(input: { token: string; password: string }, client: ClientInfo): Promise<SignedIn> {
      const password = requirePassword(input.password);
      await openLink(persistence, input.token, 'set_password');
      // Hashed outside the transaction: a transaction may be shared with others (SQLite group commits).
      const passwordHash = await hashPassword(password);
      return persistence.transaction(async (repos) => {
        const { token, user } = await openLink(repos, input.token, 'set_password');
        if (!(await repos.users.useToken(token.id, clock.now()))) throw invalidLink();
        const at = clock.now();
        await repos.users.setPassword(user.id, passwordHash, at);
        await repos.users.markActivated(user.id, at);
        await repos.sessions.revokeAllForUser(user.id, at);
        return startSession(repos, { ...user, passwordSetAt: at, activatedAt: user.activatedAt ?? at }, client);
      });
    },

    /** The same error, after the same work, for an unknown email, a user without a password and a wrong password. */
    async signIn(input: { email: string; password: string }, client: ClientInfo): Promise<SignedIn> {
      // Started first, so the very first sign-in waits for it whichever branch it takes.
      const dummyHash = dummy();
      const email = typeof input.email === 'string' ? normalizeEmail(input.email) : '';
      const password =
        typeof input.password === 'string' && input.password.length <= passwordMaxLength ? input.password : null;
      const stored = email ? await persistence.users.findByEmail(email) : null;
      const hash = stored?.passwordHash ?? (await dummyHash);
      const matches = await verifyPassword(password ?? '', hash);
      if (!stored?.passwordHash || password === null || !matches) throw invalidCredentials();
      const { passwordHash: _, ...user } = stored;
      return persistence.transaction(async (repos) => {
        // A password set by a release from before `activated_at` leaves it empty until a sign-in.
        if (user.activatedAt !== null) return startSession(repos, user, client);
        const at = clock.now();
        await repos.users.markActivated(user.id, at);
        return startSession(repos, { ...user, activatedAt: at }, client);
      });
    },

    /** Signs in with a `sign_in` link: once, within 15 minutes of its issue. */
    async redeemSignInLink(token: string, client: ClientInfo): Promise<SignedIn> {
      return persistence.transaction(async (repos) => {
        const link = await openLink(repos, token, 'sign_in');
        const at = clock.now();
        if (!(await repos.users.useToken(link.token.id, at))) throw invalidLink();
        await repos.users.markActivated(link.user.id, at);
        return startSession(repos, { ...link.user, activatedAt: link.user.activatedAt ?? at }, client);
      });
    },

    /** A link that signs this user in without a password (the development admin's, printed at start). */
    async issueSignInLink(organizationId: string, userId: string): Promise<IssuedLink> {
      return persistence.transaction(async (repos) =>
        issueToken(repos, await requireUser(repos, organizationId, userId), 'sign_in', signInLinkLifetimeMs),
      );
    },

    /** The organization's admin of this email, created (without a password) or made admin if need be. */
    async ensureAdmin(organizationId: string, email: string): Promise<User> {
      const normalized = requireEmail(email);
      return persistence.transaction(async (repos) => {
        await requireOrganization(repos, organizationId);
        const existing = await repos.users.findByEmail(normalized);
        if (existing && existing.organizationId !== organizationId) throw emailTaken();
        if (existing) {
          const { passwordHash: _, ...user } = existing;
          return user.role === 'admin' ? user : (await repos.users.setRole(organizationId, user.id, 'admin'))!;
        }
        return repos.users.create({
          id: ids.id('usr_'),
          organizationId,
          email: normalized,
          role: 'admin',
          passwordHash: null,
          passwordSetAt: null,
          activatedAt: null,
          createdAt: clock.now(),
        });
      });
    },

    /** The session of a cookie's token and its user; `session_expired` if it is unknown, revoked, idle or past its end. */
    async authenticate(token: string): Promise<{ session: Session; user: User }> {
      if (typeof token !== 'string' || token.length === 0 || token.length > 200) throw sessionExpired();
      const session = await persistence.sessions.findByHash(hashKey(token));
      const now = clock.now();
      if (
        !session ||
        session.revokedAt !== null ||
        now >= session.expiresAt ||
        now - session.lastSeenAt >= sessionIdleMs
      )
        throw sessionExpired();
      const user = await persistence.users.get(session.organizationId, session.userId);
      if (!user) throw sessionExpired();
      if (now - session.lastSeenAt < sessionTouchIntervalMs) return { session, user };
      await persistence.sessions.touch(session.id, now);
      return { session: { ...session, lastSeenAt: now }, user };
    },

    async signOut(session: Session): Promise<void> {
      await persistence.sessions.revoke(session.organizationId, session.id, clock.now());
    },

    /** Oldest first, invited users with their newest pending invitation's expiry. */
    async listUsers(
      organizationId: string,
      page: { limit: number; startingAfter?: string },
    ): Promise<{ data: ListedUser[]; hasMore: boolean }> {
      const { data, hasMore } = await persistence.users.list(organizationId, page);
      const invited = data.filter((user) => user.activatedAt === null).map((user) => user.id);
      const pending = await persistence.users.pendingInvitations(organizationId, invited, clock.now());
      const expiry = new Map(pending.map((token) => [token.userId, token.expiresAt]));
      return { data: data.map((user) => ({ ...user, invitationExpiresAt: expiry.get(user.id) ?? null })), hasMore };
    },

    /** Never leaves the organization without an admin who has signed in (`last_admin`). */
    async setRole(organizationId: string, actor: User, userId: string, role: UserRole): Promise<User> {
      requireActor(organizationId, actor);
      const wanted = requireRole(role);
      return persistence.transaction(async (repos) => {
        await repos.users.lockTeam(organizationId);
        const user = await requireUser(repos, organizationId, userId);
        if (user.role === wanted) return user;
        let changed: User | null = null;
        await keepAnAdmin(
          repos,
          user,
          async () => (changed = await repos.users.setRole(organizationId, userId, wanted)),
        );
        return changed ?? user;
      });
    },

    /** Deletes the user with their links and sessions; never the organization's last admin who has signed in. */
    async removeUser(organizationId: string, actor: User, userId: string): Promise<void> {
      requireActor(organizationId, actor);
      await persistence.transaction(async (repos) => {
        await repos.users.lockTeam(organizationId);
        const user = await requireUser(repos, organizationId, userId);
        await keepAnAdmin(repos, user, () => repos.users.remove(organizationId, userId));
      });
    },

    /**
     * A user's live sessions, the most recent `sessionListLimit` of them: each sign-in makes one, so
     * their number is bounded only by the sign-in rate limit and is never read whole. `actor` sees
     * their own, and as an admin anyone's in the organization.
     */
    async listSessions(
      organizationId: string,
      actor: User,
      userId: string,
      now = clock.now(),
    ): Promise<{ data: Session[]; hasMore: boolean }> {
      if (userId !== actor.id) {
        if (actor.role !== 'admin')
          throw new ApiError(
            'authorization_error',
            'insufficient_role',
            "Only admins may list other users' sessions.",
            'userId',
          );
        if (!(await persistence.users.get(organizationId, userId))) throw notFound('user', userId, 'userId');
      }
      const sessions = (
        await persistence.sessions.listActive(organizationId, userId, now, sessionListLimit + 1)
      ).filter((session) => now - session.lastSeenAt < sessionIdleMs);
      return { data: sessions.slice(0, sessionListLimit), hasMore: sessions.length > sessionListLimit };
    },

    /**
     * Ends one of `actor`'s sessions, or as an admin anyone's in the organization. Someone else's
     * reads to a viewer as an unknown one: their ids are nobody else's business.
     */
    async revokeSession(organizationId: string, actor: User, sessionId: string): Promise<void> {
      const session = await persistence.sessions.get(organizationId, sessionId);
      if (!session || (session.userId !== actor.id && actor.role !== 'admin')) throw notFound('session', sessionId);
      if (!(await persistence.sessions.revoke(organizationId, sessionId, clock.now())))
        throw notFound('session', sessionId, 'id');
    },
  };
}
