import {
  errorResponses,
  notFoundErrors,
  ok,
  pageParameters,
  pathParameter,
  queryErrors,
  secretKeyErrors,
  serverErrors,
} from '../helpers.ts';
import type { Parameter, PathFragment } from '../types.ts';

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

const noStore = {
  'cache-control': { description: '`no-store`: the answer holds personal data.', schema: { type: 'string' } },
};

/** `GET /v1/visitors/{visitorId}/{kind}`: every item of one kind, a page at a time. */
const visitorList = (
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
    parameters: [visitorId, pageParameters[0]!, { ...pageParameters[1]!, description: cursor }],
    responses: {
      '200': ok(`A page of the visitor's ${kind}.`, list, noStore),
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
        '200': ok('What is held about the visitor.', 'Visitor', noStore),
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
        '202': ok('The erasure, pending.', 'VisitorErasure', noStore),
        ...errorResponses(serverErrors, secretKeyErrors, visitorIdErrors),
      },
    },
  },
  '/v1/visitors/{visitorId}/generations': visitorList(
    'generations',
    'generations (made through your widgets with this visitor id)',
    'newest first',
    'VisitorGenerationList',
    'The id of the last generation of the previous page; the page continues after it.',
  ),
  '/v1/visitors/{visitorId}/identities': visitorList(
    'identities',
    "identities (the SDK's `identify` calls, one per store)",
    'the most recently identified first',
    'VisitorIdentityList',
    'The `storeId` of the last identity of the previous page (identities have no id of their own); the page continues after it.',
  ),
  '/v1/visitors/{visitorId}/conversions': visitorList(
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
