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
