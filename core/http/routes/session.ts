import type { H3, H3Event } from 'h3';
import * as v from 'valibot';
import type { Config } from '../../../config/schema.ts';
import { normalizeEmail, type Session, type User } from '../../domain/accounts.ts';
import type { Organization } from '../../domain/organization.ts';
import type { ListedUser, SignedIn } from '../../services/accounts.ts';
import { readJson, validate } from '../body.ts';
import { clientAddress } from '../browser-access.ts';
import { requireSession, services } from '../context.ts';
import { isoTime, isoTimeOrNull } from '../format.ts';
import type { RouteLimits } from '../rate-limit.ts';
import { checkOrigin, clearSessionCookie, csrfTokenFor, setSessionCookie } from '../session-auth.ts';
import {
  errorResponses,
  jsonBody,
  jsonBodyErrors,
  ok,
  security,
  serverErrors,
  sessionErrors,
} from '../openapi/helpers.ts';
import type { PathFragment, Response } from '../openapi/types.ts';

/** Passwords are checked by the accounts service (length rules with their own codes); this only bounds the body. */
const password = v.pipe(v.string('must be a string'), v.maxLength(4096, 'must be at most 4096 characters'));
const linkToken = v.pipe(
  v.string('must be a string'),
  v.minLength(1, 'must not be empty'),
  v.maxLength(200, 'must be at most 200 characters'),
);

export const signInWithPasswordBody = v.strictObject({
  email: v.pipe(v.string('must be a string'), v.maxLength(320, 'must be at most 320 characters')),
  password,
});
export const signInWithLinkBody = v.strictObject({ token: linkToken });
/** Documented as one of the two; validated by whichever the body's keys say. */
export const createSessionBody = v.union([signInWithPasswordBody, signInWithLinkBody]);
export const acceptInvitationBody = v.strictObject({ token: linkToken, password });

export const userResource = (user: User | ListedUser) => ({
  id: user.id,
  object: 'user' as const,
  email: user.email,
  role: user.role,
  status: user.activatedAt === null ? ('invited' as const) : ('active' as const),
  invitationExpiresAt: isoTimeOrNull('invitationExpiresAt' in user ? user.invitationExpiresAt : null),
  createdAt: isoTime(user.createdAt),
});

/** The signed-in session as the dashboard needs it: who, which organization, and the CSRF token. */
export const currentSessionResource = (
  session: Session,
  user: User,
  organization: Pick<Organization, 'id' | 'name'>,
  token: string,
) => ({
  id: session.id,
  object: 'session' as const,
  user: userResource(user),
  organization: { id: organization.id, name: organization.name },
  csrfToken: csrfTokenFor(token),
  createdAt: isoTime(session.createdAt),
  expiresAt: isoTime(session.expiresAt),
});

/** The browser and address a session starts from, shown in its session list. */
const clientOf = (event: H3Event, config: Config) => ({
  userAgent: event.req.headers.get('user-agent'),
  ipAddress: clientAddress(event, config.trustProxy),
});

const setCookie: Response['headers'] = {
  'set-cookie': {
    description:
      '`visualizer_session=…; Path=…; Max-Age=…; HttpOnly; SameSite=Lax`, plus `Secure` when the public URL is https.',
    schema: { type: 'string' },
  },
};

/** Sign-in routes take no key: a body, limits per address (and per account), and no page of another origin. */
const signInErrors = { 403: ['csrf_token_invalid'], 429: ['rate_limited'] };

export const sessionPaths: PathFragment = {
  '/v1/session': {
    post: {
      operationId: 'createSession',
      summary: 'Sign in to the dashboard',
      description:
        'With an email and password, or with the `token` of a one-time sign-in link. Sets the session cookie. An unknown email and a wrong password get the same answer (401 `invalid_credentials`). Limited per email address and per client address (`accounts.*` in the config); refused from a page of another origin.',
      tags: ['Dashboard'],
      security: security.none,
      requestBody: jsonBody('CreateSessionRequest', createSessionBody, {
        email: 'ada@shop.example',
        password: 'correct horse battery staple',
      }),
      responses: {
        '200': ok('Signed in: the session, and its cookie.', 'CurrentSession', setCookie),
        ...errorResponses(serverErrors, jsonBodyErrors, signInErrors, {
          400: ['invalid_link'],
          401: ['invalid_credentials'],
        }),
      },
    },
    get: {
      operationId: 'getSession',
      summary: 'The current session',
      description: 'Who is signed in, to which organization, and the CSRF token to send with changes.',
      tags: ['Dashboard'],
      security: security.session,
      responses: { '200': ok('The session.', 'CurrentSession'), ...errorResponses(serverErrors, sessionErrors) },
    },
    delete: {
      operationId: 'deleteSession',
      summary: 'Sign out',
      description: 'Ends the session and clears its cookie.',
      tags: ['Dashboard'],
      security: security.session,
      responses: {
        '204': { description: 'Signed out.', headers: setCookie },
        ...errorResponses(serverErrors, { 401: sessionErrors[401]!, 403: sessionErrors[403]! }),
      },
    },
  },
  '/v1/invitations/accept': {
    post: {
      operationId: 'acceptInvitation',
      summary: 'Accept an invitation',
      description:
        "Sets the invited user's password with the invitation's one-time `token` and signs them in (other sessions of the user end). A link works once.",
      tags: ['Dashboard'],
      security: security.none,
      requestBody: jsonBody('AcceptInvitationRequest', acceptInvitationBody, {
        token: 'Xb3kP9sT1vW3yZ5cD8aXbQ4mR7kP9sT1',
        password: 'correct horse battery staple',
      }),
      responses: {
        '200': ok('Signed in: the session, and its cookie.', 'CurrentSession', setCookie),
        ...errorResponses(serverErrors, jsonBodyErrors, signInErrors, {
          400: ['invalid_link', 'password_too_short', 'password_too_long'],
        }),
      },
    },
  },
};

/**
 * Signing in and out of the dashboard. Sign-in is limited per client address and per account, and
 * answers the same for an unknown account and a wrong password. A request from another origin's page
 * is refused, so no page can sign a visitor in to an account of its choosing.
 */
export function sessionRoutes(app: H3, limits: RouteLimits, config: Config) {
  const signedIn = (event: H3Event, signed: SignedIn) => {
    setSessionCookie(event, config, signed.token, signed.session, services(event).clock.now());
    event.res.headers.set('cache-control', 'no-store');
    return currentSessionResource(signed.session, signed.user, signed.organization, signed.token);
  };

  app.post('/v1/session', async (event) => {
    checkOrigin(event, config);
    const client = clientOf(event, config);
    await limits.signInPerAddress.take(client.ipAddress);
    const body = await readJson(event);
    const { accounts } = services(event);
    if (body !== null && typeof body === 'object' && 'token' in body) {
      const { token } = validate(signInWithLinkBody, body);
      return signedIn(event, await accounts.redeemSignInLink(token, client));
    }
    const input = validate(signInWithPasswordBody, body);
    await limits.signInPerAccount.take(normalizeEmail(input.email));
    return signedIn(event, await accounts.signIn(input, client));
  });

  app.post('/v1/invitations/accept', async (event) => {
    checkOrigin(event, config);
    const client = clientOf(event, config);
    await limits.signInPerAddress.take(client.ipAddress);
    const input = validate(acceptInvitationBody, await readJson(event));
    return signedIn(event, await services(event).accounts.acceptInvitation(input, client));
  });

  app.get('/v1/session', async (event) => {
    const caller = await requireSession(event);
    await limits.read.take(caller.id);
    const organization = await services(event).tenants.findOrganization(caller.organizationId);
    event.res.headers.set('cache-control', 'no-store');
    return currentSessionResource(
      caller.session,
      caller.user,
      organization ?? { id: caller.organizationId, name: '' },
      caller.token,
    );
  });

  app.delete('/v1/session', async (event) => {
    const caller = await requireSession(event);
    await services(event).accounts.signOut(caller.session);
    clearSessionCookie(event, config);
    event.res.status = 204;
    return null;
  });
}
