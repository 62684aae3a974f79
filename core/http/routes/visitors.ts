import { getRouterParam, type H3, type H3Event } from 'h3';
import { ApiError } from '../../domain/errors.ts';
import { generationResource, type GenerationRecord } from '../../domain/generation.ts';
import { couldBeVisitorId, type ErasureRequester, type VisitorErasure } from '../../domain/visitor-erasure.ts';
import type { VisitorIdentity } from '../../domain/visitor-identity.ts';
import type { VisitorPage, VisitorPageOptions, VisitorService } from '../../services/visitors.ts';
import { validate } from '../body.ts';
import { requireKey, services, type Caller } from '../context.ts';
import { isoTime, isoTimeOrNull } from '../format.ts';
import { pageQuerySchema, pathId, queryOf } from '../params.ts';
import type { RouteLimits } from '../rate-limit.ts';
import { conversionResource } from './conversions.ts';

/** A generation as an access request shows it: the resource, and what ties it to the visitor. */
export const visitorGenerationResource = (generation: GenerationRecord) => ({
  ...generationResource(generation),
  storeId: generation.storeId,
  widgetId: generation.widgetId,
  sessionId: generation.sessionId,
});

export const visitorIdentityResource = (identity: VisitorIdentity) => ({
  object: 'visitor_identity' as const,
  storeId: identity.storeId,
  userId: identity.userId,
  traits: identity.traits,
  sessionId: identity.sessionId,
  createdAt: isoTime(identity.createdAt),
  updatedAt: isoTime(identity.updatedAt),
});

export const visitorErasureResource = (erasure: VisitorErasure) => ({
  id: erasure.id,
  object: 'visitor_erasure' as const,
  status: erasure.status,
  requestedBy: erasure.requestedBy,
  requestedAt: isoTime(erasure.requestedAt),
  completedAt: isoTimeOrNull(erasure.completedAt),
  generationsDeleted: erasure.generationsDeleted,
  identitiesDeleted: erasure.identitiesDeleted,
  conversionsUnlinked: erasure.conversionsUnlinked,
});

type Access = Awaited<ReturnType<VisitorService['access']>>;

const items = <T, R>(found: { data: T[]; hasMore: boolean; total: number }, resource: (item: T) => R) => ({
  total: found.total,
  has_more: found.hasMore,
  data: found.data.map(resource),
});

export const visitorResource = (access: Access) => ({
  object: 'visitor' as const,
  visitorId: access.visitorId,
  limit: access.limit,
  generations: items(access.generations, visitorGenerationResource),
  identities: items(access.identities, visitorIdentityResource),
  conversions: items(access.conversions, conversionResource),
  pendingErasure: access.pendingErasure ? visitorErasureResource(access.pendingErasure) : null,
});

/**
 * The visitor id of the path. Visitor ids are the browser's, not issued here: one that cannot be
 * (empty, over 128 characters, U+0000) is a 400 naming `visitorId`, as a bad query value is.
 */
function visitorIdOf(event: H3Event): string {
  // Decoded whole: h3's own decoding keeps `%2F` as is, and a visitor id may hold a slash.
  let visitorId = '';
  try {
    visitorId = decodeURIComponent(getRouterParam(event, 'visitorId') ?? '');
  } catch {
    // Malformed percent-encoding: no visitor id.
  }
  if (!couldBeVisitorId(visitorId)) {
    throw new ApiError(
      'invalid_request_error',
      'parameter_invalid',
      'visitorId: must be 1 to 128 characters, without U+0000 (NUL)',
      'visitorId',
    );
  }
  return visitorId;
}

/** Who asked: the API key, or the dashboard user. */
const requesterOf = (caller: Caller): ErasureRequester =>
  caller.via === 'key' ? { type: 'api_key', id: caller.id } : { type: 'user', id: caller.id };

/** Answers carry a visitor's personal data: no cache keeps them. */
const noStore = (event: H3Event) => event.res.headers.set('cache-control', 'no-store');

/**
 * `GET /v1/visitors/{visitorId}/{kind}`: one kind of what is held about the visitor, paged as every
 * list is (`limit`, `starting_after`), so the first page of `GET /v1/visitors/{visitorId}` is not
 * all a shop can hand over.
 */
function visitorList<T>(
  app: H3,
  limits: RouteLimits,
  kind: 'generations' | 'identities' | 'conversions',
  list: (
    visitors: VisitorService,
    organizationId: string,
    visitorId: string,
    page: VisitorPageOptions,
  ) => Promise<VisitorPage<T>>,
  resource: (item: T) => object,
) {
  app.get(`/v1/visitors/:visitorId/${kind}`, async (event) => {
    const caller = await requireKey(event, 'secret');
    await limits.read.take(caller.id);
    const visitorId = visitorIdOf(event);
    const query = validate(pageQuerySchema, queryOf(event));
    const page = await list(services(event).visitors, caller.organizationId, visitorId, {
      limit: Number(query.limit),
      startingAfter: query.starting_after,
    });
    noStore(event);
    return { object: 'list', data: page.data.map(resource), has_more: page.hasMore };
  });
}

/**
 * A widget visitor's data (GDPR Articles 15 and 17): the secret key or the dashboard's session;
 * erasing is refused to viewers (an unsafe method, see requireKey). The erasures' own paths stand
 * apart from `/v1/visitors/{visitorId}`, so no visitor id can be mistaken for them.
 */
export function visitorRoutes(app: H3, limits: RouteLimits) {
  app.get('/v1/visitors/:visitorId', async (event) => {
    const caller = await requireKey(event, 'secret');
    await limits.read.take(caller.id);
    const visitorId = visitorIdOf(event);
    noStore(event);
    return visitorResource(await services(event).visitors.access(caller.organizationId, visitorId));
  });

  visitorList(
    app,
    limits,
    'generations',
    (visitors, ...args) => visitors.listGenerations(...args),
    visitorGenerationResource,
  );
  visitorList(
    app,
    limits,
    'identities',
    (visitors, ...args) => visitors.listIdentities(...args),
    visitorIdentityResource,
  );
  visitorList(app, limits, 'conversions', (visitors, ...args) => visitors.listConversions(...args), conversionResource);

  app.delete('/v1/visitors/:visitorId', async (event) => {
    const caller = await requireKey(event, 'secret');
    await limits.read.take(caller.id);
    const visitorId = visitorIdOf(event);
    const { erasure } = await services(event).visitors.requestErasure(
      caller.organizationId,
      visitorId,
      requesterOf(caller),
    );
    event.res.status = 202;
    noStore(event);
    return visitorErasureResource(erasure);
  });

  app.get('/v1/visitor-erasures', async (event) => {
    const caller = await requireKey(event, 'secret');
    await limits.read.take(caller.id);
    const query = validate(pageQuerySchema, queryOf(event));
    const page = await services(event).visitors.listErasures(caller.organizationId, {
      limit: Number(query.limit),
      startingAfter: query.starting_after,
    });
    return { object: 'list', data: page.data.map(visitorErasureResource), has_more: page.hasMore };
  });

  app.get('/v1/visitor-erasures/:id', async (event) => {
    const caller = await requireKey(event, 'secret');
    await limits.read.take(caller.id);
    return visitorErasureResource(
      await services(event).visitors.getErasure(caller.organizationId, pathId(event, 'id', 'visitor erasure')),
    );
  });
}
