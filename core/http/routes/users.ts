import type { H3 } from 'h3';
import * as v from 'valibot';
import { userRoles, type Session } from '../../domain/accounts.ts';
import { readValidJson, validate } from '../body.ts';
import { requireSession, services, type SessionCaller } from '../context.ts';
import { isoTime } from '../format.ts';
import { cursorSchema, pageQuerySchema, pathId, queryOf } from '../params.ts';
import type { RouteLimits } from '../rate-limit.ts';
import { clearSessionCookie } from '../session-auth.ts';
import type { Config } from '../../../config/schema.ts';
import { userResource } from './session.ts';

const role = v.picklist(userRoles, `must be ${userRoles.map((name) => `'${name}'`).join(' or ')}`);

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
