import { ref } from '../components.ts';
import {
  errorResponses,
  jsonBody,
  jsonBodyErrors,
  ok,
  pageParameters,
  queryErrors,
  secretKeyErrors,
  security,
  serverErrors,
} from '../helpers.ts';
import type { Parameter, PathFragment } from '../types.ts';

/** What the routes' `parseIsoTime` accepts, in its canonical forms. */
const isoQueryTime = {
  type: 'string',
  anyOf: [{ format: 'date' }, { format: 'date-time' }],
  description:
    'An ISO 8601 date (`2025-03-01`, midnight UTC) or date-time with a time zone (`2025-03-01T14:30:00Z`), from 1970 on.',
};
/** The examples make one range the routes accept together: `to` after `from`, within 366 days. */
const rangeExamples = { from: '2025-03-01', to: '2025-04-01' };
export const range: Parameter[] = [
  {
    name: 'from',
    in: 'query',
    description: 'Start of the range (inclusive).',
    schema: isoQueryTime,
    example: rangeExamples.from,
  },
  {
    name: 'to',
    in: 'query',
    description: 'End of the range (exclusive); must be after `from`.',
    schema: isoQueryTime,
    example: rangeExamples.to,
  },
];

const browserCors = {
  'access-control-allow-origin': { description: 'Always `*`: any page may report.', schema: { type: 'string' } },
};

export const orderWebhookExample = {
  orderId: '1234',
  storeId: 'store_2aXbQ4mR7kP9sT1vW3yZ5cD8',
  organizationId: 'org_7hJkL2mN4pQ6rS8tU0vW2xY4',
  visitorId: 'v_9f8e7d6c',
  sessionId: 's_1a2b3c4d',
  totalCents: 5998,
  currency: 'USD',
  platform: 'custom',
  status: 'completed',
  orderCreatedAt: '2025-03-01T14:30:00Z',
  items: [{ productId: 'sku-1042', quantity: 2, priceCents: 2999, totalCents: 5998 }],
};

const collectExample = {
  type: '$conversion',
  storeId: 'store_2aXbQ4mR7kP9sT1vW3yZ5cD8',
  visitorId: 'v_9f8e7d6c',
  sessionId: 's_1a2b3c4d',
  props: {
    orderId: '1234',
    totalCents: 5998,
    currency: 'USD',
    items: [{ productId: 'sku-1042', quantity: 2, priceCents: 2999, totalCents: 5998 }],
  },
};

export const conversionPaths: PathFragment = {
  '/api/webhooks/orders': {
    post: {
      operationId: 'reportOrder',
      summary: 'Report an order (order webhook)',
      description:
        "Your shop's server reports an order, or a later change to its status, with a conversion key. Reporting the same (storeId, orderId) again updates it; an order never counts twice.",
      tags: ['Conversions'],
      security: security.conversionKey,
      requestBody: jsonBody('OrderWebhookRequest', orderWebhookExample),
      responses: {
        '200': ok('Recorded.', 'Success'),
        ...errorResponses(serverErrors, secretKeyErrors, jsonBodyErrors, {
          403: ['organization_mismatch', 'store_not_allowed'],
        }),
      },
    },
  },
  '/api/collect': {
    options: {
      operationId: 'preflightCollect',
      summary: 'CORS preflight of the collector',
      tags: ['Browser'],
      security: security.none,
      responses: {
        '204': { description: 'Any origin may POST.', headers: browserCors },
        ...errorResponses({ 500: ['internal_error'] }),
      },
    },
    post: {
      operationId: 'collectBrowserEvent',
      summary: 'Collect a browser event (keyless)',
      description:
        "What the browser SDK's `track('$conversion', …)` and `identify()` send; identified by store id, no key. JSON sent as `text/plain` (no preflight, as `sendBeacon` does) or `application/json`; at most 64 KB.",
      tags: ['Browser'],
      security: security.none,
      requestBody: {
        required: true,
        content: {
          'text/plain': { schema: ref('CollectRequest'), example: collectExample },
          'application/json': { schema: ref('CollectRequest'), example: collectExample },
        },
      },
      responses: {
        '202': ok('Accepted.', 'Success', browserCors),
        ...errorResponses(serverErrors, jsonBodyErrors, { 404: ['resource_missing'], 429: ['rate_limited'] }),
      },
    },
  },
  '/v1/conversions': {
    get: {
      operationId: 'listConversions',
      summary: 'List conversions',
      description: 'Orders reported by your server and the browser SDK, with their attribution, newest first.',
      tags: ['Conversions'],
      parameters: [
        ...pageParameters,
        {
          name: 'storeId',
          in: 'query',
          description: 'Only orders of this store.',
          schema: { type: 'string', minLength: 1, maxLength: 64 },
        },
        ...range,
      ],
      responses: {
        '200': ok('A page of conversions.', 'ConversionList'),
        ...errorResponses(serverErrors, secretKeyErrors, queryErrors, { 404: ['resource_missing'] }),
      },
    },
  },
  '/v1/analytics/daily': {
    get: {
      operationId: 'getAnalyticsDaily',
      summary: 'Get daily figures',
      description:
        "Per UTC day: generations by status, credits spent, conversions, attributed conversions and attributed revenue per currency, every day of the range present. The range is rounded out to whole UTC days (`from` down to its midnight, `to` up to the next) and spans at most 366 days; by default the 30 days ending with today. The organization's figures, or one store's (a store's generations are those made through its widgets).",
      tags: ['Analytics'],
      parameters: [
        {
          name: 'storeId',
          in: 'query',
          description: 'Only this store.',
          schema: { type: 'string', minLength: 1, maxLength: 64 },
        },
        {
          name: 'from',
          in: 'query',
          description: 'Start of the range (inclusive); by default 30 days before `to`.',
          schema: isoQueryTime,
          example: rangeExamples.from,
        },
        {
          name: 'to',
          in: 'query',
          description:
            'End of the range (exclusive); must be after `from`, at most 366 days after it; by default the end of today (UTC).',
          schema: isoQueryTime,
          example: rangeExamples.to,
        },
      ],
      responses: {
        '200': ok('The figures per day.', 'AnalyticsDaily'),
        ...errorResponses(serverErrors, secretKeyErrors, queryErrors, { 404: ['resource_missing'] }),
      },
    },
  },
  '/v1/analytics/summary': {
    get: {
      operationId: 'getAnalyticsSummary',
      summary: "Get a store's analytics summary",
      description: 'Visualizations, conversions and attributed revenue over [from, to); the last 30 days by default.',
      tags: ['Analytics'],
      parameters: [
        {
          name: 'storeId',
          in: 'query',
          required: true,
          description: 'The store.',
          schema: { type: 'string', minLength: 1, maxLength: 64 },
        },
        ...range,
      ],
      responses: {
        '200': ok('The summary.', 'AnalyticsSummary'),
        ...errorResponses(serverErrors, secretKeyErrors, queryErrors, { 404: ['resource_missing'] }),
      },
    },
  },
};
