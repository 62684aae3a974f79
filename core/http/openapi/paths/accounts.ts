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
} from '../helpers.ts';
import type { PathFragment, Response } from '../types.ts';

const setCookie: Response['headers'] = {
  'set-cookie': {
    description:
      '`visualizer_session=…; Path=…; Max-Age=…; HttpOnly; SameSite=Lax`, plus `Secure` when the public URL is https.',
    schema: { type: 'string' },
  },
};

/** Sign-in routes take no key: a body, limits per address (and per account), and no page of another origin. */
const signInErrors = { 403: ['csrf_token_invalid'], 429: ['rate_limited'] };

const userId = pathParameter('id', 'The user id (`usr_…`).');

export const accountPaths: PathFragment = {
  '/v1/session': {
    post: {
      operationId: 'createSession',
      summary: 'Sign in to the dashboard',
      description:
        'With an email and password, or with the `token` of a one-time sign-in link. Sets the session cookie. An unknown email and a wrong password get the same answer (401 `invalid_credentials`). Limited per email address and per client address (`accounts.*` in the config); refused from a page of another origin.',
      tags: ['Dashboard'],
      security: security.none,
      requestBody: jsonBody('CreateSessionRequest', {
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
      requestBody: jsonBody('AcceptInvitationRequest', {
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
      description: 'Admins only. The organization always keeps an admin who has set a password (409 `last_admin`).',
      tags: ['Team'],
      security: security.session,
      parameters: [userId],
      requestBody: jsonBody('UpdateUserRequest', { role: 'viewer' }),
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
        'Admins only. Deletes the user with their links and sessions; never the last admin who has set a password.',
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
      requestBody: jsonBody('InviteUserRequest', { email: 'grace@shop.example', role: 'viewer' }),
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
      parameters: [
        {
          name: 'userId',
          in: 'query',
          description: 'Whose sessions (admins only, when not yours).',
          schema: { type: 'string', minLength: 1, maxLength: 64 },
        },
      ],
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
