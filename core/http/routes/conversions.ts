import type { H3 } from 'h3';
import * as v from 'valibot';
import type { Config } from '../../../config/schema.ts';
import { dayMs } from '../../domain/attribution.ts';
import { collectSchema, orderWebhookSchema, parseIsoTime } from '../../domain/conversion-input.ts';
import { ApiError } from '../../domain/errors.ts';
import type { ConversionRecord } from '../../domain/conversion.ts';
import { readValidJson, validate } from '../body.ts';
import { allowAnyOrigin, clientAddress, preflight, readBrowserJson } from '../browser-access.ts';
import { requireKey, services } from '../context.ts';
import { isoTime } from '../format.ts';
import { pageQuerySchema, queryOf } from '../params.ts';
import type { RouteLimits } from '../rate-limit.ts';
import { requestSchema } from '../openapi/request-schemas.ts';
import {
  errorResponses,
  jsonBody,
  jsonBodyErrors,
  ok,
  pageNotes,
  queryErrors,
  secretKeyErrors,
  security,
  serverErrors,
} from '../openapi/helpers.ts';
import { queryParameters } from '../openapi/query-parameters.ts';
import type { PathFragment } from '../openapi/types.ts';

/** Browser events are small; 200 items with long ids fit well within it. */
export const collectBodyLimit = 64 * 1024;

export const conversionResource = (conversion: ConversionRecord) => ({
  id: conversion.id,
  object: 'conversion' as const,
  orderId: conversion.orderId,
  storeId: conversion.storeId,
  visitorId: conversion.visitorId,
  sessionId: conversion.sessionId,
  totalCents: conversion.totalCents,
  currency: conversion.currency,
  status: conversion.status,
  items: conversion.items,
  source: conversion.source,
  orderCreatedAt: isoTime(conversion.orderCreatedAt),
  attribution: conversion.attribution,
  createdAt: isoTime(conversion.createdAt),
  updatedAt: isoTime(conversion.updatedAt),
});

const isoQueryTime = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const at = parseIsoTime(dataset.value);
    if (at === null) {
      addIssue({ message: 'must be an ISO 8601 date or date-time with a time zone' });
      return NEVER;
    }
    return at;
  }),
);

/** `from` (inclusive) and `to` (exclusive): ISO 8601 dates or date-times, as epoch ms. Other lists filter by time with them too. */
export const rangeEntries = { from: v.optional(isoQueryTime), to: v.optional(isoQueryTime) };
const storeIdEntry = v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(64));

const listQuery = v.pipe(
  v.object({ ...pageQuerySchema.entries, storeId: v.optional(storeIdEntry), ...rangeEntries }),
  v.forward(
    v.check(
      (query) => query.from === undefined || query.to === undefined || query.from < query.to,
      'must be after from',
    ),
    ['to'],
  ),
);

const summaryQuery = v.object({ storeId: storeIdEntry, ...rangeEntries });

const dailyQuery = v.pipe(
  v.object({ storeId: v.optional(storeIdEntry), ...rangeEntries }),
  v.forward(
    v.check(
      (query) => query.from === undefined || query.to === undefined || query.from < query.to,
      'must be after from',
    ),
    ['to'],
  ),
);

/** The longest range `GET /v1/analytics/daily` answers for, in days: a year, leap day included. */
export const maxDailyRangeDays = 366;

/** What the routes' `parseIsoTime` accepts, in its canonical forms. */
const isoQueryTimeSchema = {
  type: 'string',
  anyOf: [{ format: 'date' }, { format: 'date-time' }],
  description:
    'An ISO 8601 date (`2025-03-01`, midnight UTC) or date-time with a time zone (`2025-03-01T14:30:00Z`), from 1970 on.',
};
/** The examples make one range the routes accept together: `to` after `from`, within 366 days. */
const rangeExamples = { from: '2025-03-01', to: '2025-04-01' };
/** `rangeEntries` in words; their schema is written here, as `parseIsoTime` checks them with code. */
export const rangeNotes = {
  from: { description: 'Start of the range (inclusive).', schema: isoQueryTimeSchema, example: rangeExamples.from },
  to: {
    description: 'End of the range (exclusive); must be after `from`.',
    schema: isoQueryTimeSchema,
    example: rangeExamples.to,
  },
};

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

/** One schema under both content types the beacon sends. */
const collectRequest = requestSchema('CollectRequest', collectSchema);
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
      requestBody: jsonBody('OrderWebhookRequest', orderWebhookSchema, orderWebhookExample),
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
          'text/plain': { schema: collectRequest, example: collectExample },
          'application/json': { schema: collectRequest, example: collectExample },
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
      parameters: queryParameters(listQuery, {
        ...pageNotes,
        storeId: { description: 'Only orders of this store.' },
        ...rangeNotes,
      }),
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
      description: `Per UTC day: generations by status, credits spent, conversions, attributed conversions and attributed revenue per currency, every day of the range present. The range is rounded out to whole UTC days (\`from\` down to its midnight, \`to\` up to the next) and spans at most ${maxDailyRangeDays} days; by default the 30 days ending with today. The organization's figures, or one store's (a store's generations are those made through its widgets).`,
      tags: ['Analytics'],
      parameters: queryParameters(dailyQuery, {
        storeId: { description: 'Only this store.' },
        from: { ...rangeNotes.from, description: 'Start of the range (inclusive); by default 30 days before `to`.' },
        to: {
          ...rangeNotes.to,
          description: `End of the range (exclusive); must be after \`from\`, at most ${maxDailyRangeDays} days after it; by default the end of today (UTC).`,
        },
      }),
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
      parameters: queryParameters(summaryQuery, { storeId: { description: 'The store.' }, ...rangeNotes }),
      responses: {
        '200': ok('The summary.', 'AnalyticsSummary'),
        ...errorResponses(serverErrors, secretKeyErrors, queryErrors, { 404: ['resource_missing'] }),
      },
    },
  },
};

export function conversionRoutes(app: H3, limits: RouteLimits, config: Config) {
  /** The shop's server reports an order (conversion key). */
  app.post('/api/webhooks/orders', async (event) => {
    const key = await requireKey(event, 'conversion');
    await limits.read.take(key.id);
    const input = await readValidJson(event, orderWebhookSchema);
    await services(event).conversions.reportFromServer(key.organizationId, input);
    return { success: true };
  });

  /** The browser SDK's `track('$conversion')` and `identify()`: keyless, identified by store id. */
  app.options('/api/collect', (event) => {
    allowAnyOrigin(event);
    return preflight(event, 'POST', 86_400);
  });

  app.post('/api/collect', async (event) => {
    allowAnyOrigin(event);
    await limits.collectPerIp.take(clientAddress(event, config.trustProxy));
    const input = validate(collectSchema, await readBrowserJson(event, collectBodyLimit));
    await limits.collectPerVisitor.take(`${input.storeId}:${input.visitorId}`);
    await services(event).conversions.collect(input);
    event.res.status = 202;
    return { success: true };
  });

  app.get('/v1/conversions', async (event) => {
    const key = await requireKey(event, 'secret');
    await limits.read.take(key.id);
    const query = validate(listQuery, queryOf(event));
    const page = await services(event).conversions.list(key.organizationId, {
      storeId: query.storeId,
      from: query.from,
      to: query.to,
      limit: Number(query.limit),
      startingAfter: query.starting_after,
    });
    return { object: 'list', data: page.data.map(conversionResource), has_more: page.hasMore };
  });

  /**
   * The overview's figures per UTC day. The range is rounded out to whole days (`from` down to its
   * midnight, `to` up to the next), so each day's figures are the whole day's; by default the 30
   * days ending with today.
   */
  app.get('/v1/analytics/daily', async (event) => {
    const key = await requireKey(event, 'secret');
    await limits.read.take(key.id);
    const query = validate(dailyQuery, queryOf(event));
    const to = Math.ceil((query.to ?? services(event).clock.now()) / dayMs) * dayMs;
    const from = Math.floor((query.from ?? to - 30 * dayMs) / dayMs) * dayMs;
    if ((to - from) / dayMs > maxDailyRangeDays) {
      throw new ApiError(
        'invalid_request_error',
        'parameter_invalid',
        `to: the range must span at most ${maxDailyRangeDays} days`,
        'to',
      );
    }
    const days = await services(event).conversions.daily(key.organizationId, { storeId: query.storeId, from, to });
    return {
      object: 'analytics_daily',
      storeId: query.storeId ?? null,
      from: isoTime(from),
      to: isoTime(to),
      data: days,
    };
  });

  app.get('/v1/analytics/summary', async (event) => {
    const key = await requireKey(event, 'secret');
    await limits.read.take(key.id);
    const query = validate(summaryQuery, queryOf(event));
    const { clock } = services(event);
    const to = query.to ?? clock.now();
    const from = query.from ?? to - 30 * dayMs;
    if (from >= to) throw new ApiError('invalid_request_error', 'parameter_invalid', 'to: must be after from', 'to');
    const { store, ...summary } = await services(event).conversions.summary(key.organizationId, query.storeId, {
      from,
      to,
    });
    return { object: 'analytics_summary', storeId: store.id, from: isoTime(from), to: isoTime(to), ...summary };
  });
}
