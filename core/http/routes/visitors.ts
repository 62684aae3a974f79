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
import {
  errorResponses,
  notFoundErrors,
  ok,
  pageNotes,
  pageParameters,
  pathParameter,
  queryErrors,
  secretKeyErrors,
  serverErrors,
} from '../openapi/helpers.ts';
import { queryParameters } from '../openapi/query-parameters.ts';
import type { Parameter, PathFragment } from '../openapi/types.ts';

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

const tags = ['Visitors'];

const visitorId: Parameter = {
  name: 'visitorId',
  in: 'path',
  required: true,
  description:
    "The widget visitor's id, as the browser SDK made it (`getIdentity().visitorId`), URL-encoded: 1 to 128 characters.",
  schema: { type: 'string', minLength: 1, maxLength: 128 },
  example: 'v_9f8e7d6c',
};

/** A visitor id that cannot be one (empty, too long, U+0000). */
const visitorIdErrors = { 400: ['parameter_invalid'] };

const noStoreHeaders = {
  'cache-control': { description: '`no-store`: the answer holds personal data.', schema: { type: 'string' } },
};

/** `GET /v1/visitors/{visitorId}/{kind}`: every item of one kind, a page at a time. */
const visitorListPath = (
  kind: string,
  what: string,
  order: string,
  list: 'VisitorGenerationList' | 'VisitorIdentityList' | 'ConversionList',
  cursor: string,
) => ({
  get: {
    operationId: `listVisitor${kind[0]!.toUpperCase()}${kind.slice(1)}`,
    summary: `List a visitor's ${kind}`,
    description: `All the ${what} held about a widget visitor, ${order}, a page at a time: \`GET /v1/visitors/{visitorId}\` lists at most 100 of each kind, so follow \`has_more\` here to hand over a complete copy. An unknown visitor answers an empty page. Viewers may call it.`,
    tags,
    parameters: [
      visitorId,
      ...queryParameters(pageQuerySchema, { ...pageNotes, starting_after: { description: cursor } }),
    ],
    responses: {
      '200': ok(`A page of the visitor's ${kind}.`, list, noStoreHeaders),
      ...errorResponses(serverErrors, secretKeyErrors, queryErrors, visitorIdErrors),
    },
  },
});

export const visitorPaths: PathFragment = {
  '/v1/visitors/{visitorId}': {
    get: {
      operationId: 'getVisitor',
      summary: 'Get what is held about a visitor (access request)',
      description:
        "Everything your organization holds about a widget visitor, for a GDPR Article 15 access request: the generations made through your widgets with this visitor id (with their images' URLs and session ids), its identities (the SDK's `identify` calls: your user id and traits), and the conversions reported with its visitor id or with a session id of those generations, identities and conversions. At most `limit` (100) of each kind, newest first, with `total` counting them all (a visitor id anyone can send may have made many generations): `GET /v1/visitors/{visitorId}/generations`, `/identities` and `/conversions` page through all of them. An unknown visitor answers 200 with nothing listed. `pendingErasure` is an erasure of the visitor still under way. Viewers may call it.",
      tags,
      parameters: [visitorId],
      responses: {
        '200': ok('What is held about the visitor.', 'Visitor', noStoreHeaders),
        ...errorResponses(serverErrors, secretKeyErrors, visitorIdErrors),
      },
    },
    delete: {
      operationId: 'eraseVisitor',
      summary: 'Erase a visitor (erasure request)',
      description:
        "Starts the erasure of a widget visitor, for a GDPR Article 17 request: its generations are deleted (their images with them: the URLs answer 404), its identities are deleted, and the conversions reported with its visitor id or one of its session ids are kept for your revenue figures with both ids removed. It runs in the background, in batches that survive a restart; poll `GET /v1/visitor-erasures/{id}` until `status` is `complete`. While an erasure of the visitor is pending, asking again answers that erasure (and queues its work again if it had stopped after repeated failures). The erasure record keeps who asked, when, and how much of each kind it erased, never the visitor's ids. Admins only in the dashboard.",
      tags,
      parameters: [visitorId],
      responses: {
        '202': ok('The erasure, pending.', 'VisitorErasure', noStoreHeaders),
        ...errorResponses(serverErrors, secretKeyErrors, visitorIdErrors),
      },
    },
  },
  '/v1/visitors/{visitorId}/generations': visitorListPath(
    'generations',
    'generations (made through your widgets with this visitor id)',
    'newest first',
    'VisitorGenerationList',
    'The id of the last generation of the previous page; the page continues after it.',
  ),
  '/v1/visitors/{visitorId}/identities': visitorListPath(
    'identities',
    "identities (the SDK's `identify` calls, one per store)",
    'the most recently identified first',
    'VisitorIdentityList',
    'The `storeId` of the last identity of the previous page (identities have no id of their own); the page continues after it.',
  ),
  '/v1/visitors/{visitorId}/conversions': visitorListPath(
    'conversions',
    'conversions (orders reported with this visitor id, or with a session id of its generations, identities or conversions)',
    'the newest order first',
    'ConversionList',
    'The id of the last conversion of the previous page; the page continues after it.',
  ),
  '/v1/visitor-erasures': {
    get: {
      operationId: 'listVisitorErasures',
      summary: 'List visitor erasures',
      description:
        "Your erasures, the most recently requested first: the audit trail of erasure requests, without the visitors' ids.",
      tags,
      parameters: pageParameters,
      responses: {
        '200': ok('A page of erasures.', 'VisitorErasureList'),
        ...errorResponses(serverErrors, secretKeyErrors, queryErrors),
      },
    },
  },
  '/v1/visitor-erasures/{id}': {
    get: {
      operationId: 'getVisitorErasure',
      summary: 'Get a visitor erasure',
      tags,
      parameters: [pathParameter('id', 'The erasure id (`vera_…`).')],
      responses: {
        '200': ok('The erasure.', 'VisitorErasure'),
        ...errorResponses(serverErrors, secretKeyErrors, notFoundErrors),
      },
    },
  },
};

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
