import type { H3 } from 'h3';
import * as v from 'valibot';
import { userRoles, type Session } from '../../domain/accounts.ts';
import { choices } from '../../domain/text.ts';
import { readValidJson, validate } from '../body.ts';
import { requireSession, services, type SessionCaller } from '../context.ts';
import { isoTime } from '../format.ts';
import { cursorSchema, pageQuerySchema, pathId, queryOf } from '../params.ts';
import type { RouteLimits } from '../rate-limit.ts';
import { clearSessionCookie } from '../session-auth.ts';
import type { Config } from '../../../config/schema.ts';
import { userResource } from './session.ts';
import {
  adminSessionErrors,
  errorResponses,
  jsonBody,
  jsonBodyErrors,
  notFoundErrors,
  ok,
  pageParameters,
  pathParameter,
  queryErrors,
  security,
  serverErrors,
  sessionErrors,
} from '../openapi/helpers.ts';
import { queryParameters } from '../openapi/query-parameters.ts';
import type { PathFragment } from '../openapi/types.ts';

const role = v.picklist(userRoles, `must be ${choices(userRoles)}`);

export const inviteUserBody = v.strictObject({
  email: v.pipe(
    v.string('must be a string'),
    v.trim(),
    v.maxLength(254, 'must be at most 254 characters'),
    v.email('must be an email address'),
  ),
  role,
});
export const updateUserBody = v.strictObject({ role });

const sessionsQuery = v.object({ userId: v.optional(cursorSchema) });

export const sessionResource = (session: Session, current: SessionCaller) => ({
  id: session.id,
  object: 'session' as const,
  userId: session.userId,
  current: session.id === current.session.id,
  userAgent: session.userAgent,
  ipAddress: session.ipAddress,
  createdAt: isoTime(session.createdAt),
  lastSeenAt: isoTime(session.lastSeenAt),
  expiresAt: isoTime(session.expiresAt),
});

const userId = pathParameter('id', 'The user id (`usr_…`).');

export const userPaths: PathFragment = {
  '/v1/users': {
    get: {
      operationId: 'listUsers',
      summary: 'List users',
      description: 'The dashboard users of your organization, invited ones included, oldest first. Admins only.',
      tags: ['Team'],
      security: security.session,
      parameters: pageParameters,
      responses: {
        '200': ok('A page of users.', 'UserList'),
        ...errorResponses(serverErrors, adminSessionErrors, queryErrors),
      },
    },
  },
  '/v1/users/{id}': {
    patch: {
      operationId: 'updateUser',
      summary: "Change a user's role",
      description:
        'Admins only. The organization always keeps an admin who can sign in, that is an `active` admin: one who has signed in, by password or by sign-in link (409 `last_admin`).',
      tags: ['Team'],
      security: security.session,
      parameters: [userId],
      requestBody: jsonBody('UpdateUserRequest', updateUserBody, { role: 'viewer' }),
      responses: {
        '200': ok('The user.', 'User'),
        ...errorResponses(serverErrors, adminSessionErrors, jsonBodyErrors, notFoundErrors, {
          400: ['invalid_role'],
          409: ['last_admin'],
        }),
      },
    },
    delete: {
      operationId: 'deleteUser',
      summary: 'Remove a user',
      description:
        'Admins only. Deletes the user with their links and sessions; never the last `active` admin (one who has signed in, by password or by sign-in link): 409 `last_admin`.',
      tags: ['Team'],
      security: security.session,
      parameters: [userId],
      responses: {
        '200': ok('The user is gone.', 'DeletedUser'),
        ...errorResponses(serverErrors, adminSessionErrors, notFoundErrors, { 409: ['last_admin'] }),
      },
    },
  },
  '/v1/invitations': {
    post: {
      operationId: 'createInvitation',
      summary: 'Invite a user',
      description:
        'Admins only. Creates the user (status `invited`) and a one-time link, valid 7 days, to choose a password: no mail is sent, hand the `url` over yourself. Inviting an invited user again issues a new link; an email address that already belongs to a user is 409 `email_taken`.',
      tags: ['Team'],
      security: security.session,
      requestBody: jsonBody('InviteUserRequest', inviteUserBody, { email: 'grace@shop.example', role: 'viewer' }),
      responses: {
        '201': ok('The invitation, with its link shown once.', 'Invitation'),
        ...errorResponses(serverErrors, adminSessionErrors, jsonBodyErrors, {
          400: ['invalid_email', 'invalid_role'],
          409: ['email_taken'],
        }),
      },
    },
  },
  '/v1/sessions': {
    get: {
      operationId: 'listSessions',
      summary: 'List sessions',
      description:
        "Your own sessions that have not ended, the 100 most recent (`has_more` says whether there are more); an admin may ask for another user's of the organization.",
      tags: ['Team'],
      security: security.session,
      parameters: queryParameters(sessionsQuery, {
        userId: { description: 'Whose sessions (admins only, when not yours).' },
      }),
      responses: {
        '200': ok('The sessions, all on one page.', 'SessionList'),
        ...errorResponses(serverErrors, sessionErrors, queryErrors, notFoundErrors, { 403: ['insufficient_role'] }),
      },
    },
  },
  '/v1/sessions/{id}': {
    delete: {
      operationId: 'deleteSessionById',
      summary: 'Revoke a session',
      description:
        'Ends one of your sessions (its browser is signed out), or for an admin any session of the organization. Revoking the current one also clears its cookie.',
      tags: ['Team'],
      security: security.session,
      parameters: [pathParameter('id', 'The session id (`ses_…`).')],
      responses: { '204': { description: 'Revoked.' }, ...errorResponses(serverErrors, sessionErrors, notFoundErrors) },
    },
  },
};

/**
 * The team (admins only) and each user's own sessions. Session-only: people, not API keys, decide
 * who may sign in to an organization.
 */
export function userRoutes(app: H3, limits: RouteLimits, config: Config) {
  app.get('/v1/users', async (event) => {
    const caller = await requireSession(event, { admin: true });
    await limits.read.take(caller.id);
    const query = validate(pageQuerySchema, queryOf(event));
    const page = await services(event).accounts.listUsers(caller.organizationId, {
      limit: Number(query.limit),
      startingAfter: query.starting_after,
    });
    return { object: 'list', data: page.data.map(userResource), has_more: page.hasMore };
  });

  app.patch('/v1/users/:id', async (event) => {
    const caller = await requireSession(event, { admin: true });
    await limits.read.take(caller.id);
    const id = pathId(event, 'id', 'user');
    const body = await readValidJson(event, updateUserBody);
    return userResource(await services(event).accounts.setRole(caller.organizationId, caller.user, id, body.role));
  });

  app.delete('/v1/users/:id', async (event) => {
    const caller = await requireSession(event, { admin: true });
    await limits.read.take(caller.id);
    const id = pathId(event, 'id', 'user');
    await services(event).accounts.removeUser(caller.organizationId, caller.user, id);
    return { id, object: 'user' as const, deleted: true as const };
  });

  app.post('/v1/invitations', async (event) => {
    const caller = await requireSession(event, { admin: true });
    await limits.read.take(caller.id);
    const body = await readValidJson(event, inviteUserBody);
    const link = await services(event).accounts.invite(caller.organizationId, body);
    event.res.status = 201;
    event.res.headers.set('cache-control', 'no-store');
    return {
      object: 'invitation' as const,
      userId: link.user.id,
      email: link.user.email,
      role: link.user.role,
      url: link.url,
      expiresAt: isoTime(link.expiresAt),
    };
  });

  app.get('/v1/sessions', async (event) => {
    const caller = await requireSession(event);
    await limits.read.take(caller.id);
    const { userId = caller.user.id } = validate(sessionsQuery, queryOf(event));
    const sessions = await services(event).accounts.listSessions(caller.organizationId, caller.user, userId);
    return {
      object: 'list',
      data: sessions.data.map((session) => sessionResource(session, caller)),
      has_more: sessions.hasMore,
    };
  });

  app.delete('/v1/sessions/:id', async (event) => {
    const caller = await requireSession(event);
    await limits.read.take(caller.id);
    const id = pathId(event, 'id', 'session');
    await services(event).accounts.revokeSession(caller.organizationId, caller.user, id);
    if (id === caller.session.id) clearSessionCookie(event, config);
    event.res.status = 204;
    return null;
  });
}
