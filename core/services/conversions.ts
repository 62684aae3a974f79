import type { Ports } from '../ports/index.ts';
import { attribute, attributionWindow, dayMs } from '../domain/attribution.ts';
import type { GenerationStatus } from '../domain/generation.ts';
import { mergeReport, type ConversionReport } from '../domain/conversion.ts';
import type { CollectInput, OrderWebhookInput } from '../domain/conversion-input.ts';
import { ApiError, notFound } from '../domain/errors.ts';
import type { ConversionAttribution, ConversionRecord } from '../domain/conversion.ts';
import type { Store } from '../domain/store.ts';
import type { Repositories } from '../ports/persistence/index.ts';

export type ConversionService = ReturnType<typeof conversionService>;

/** One UTC day of `GET /v1/analytics/daily`. */
export interface DailyFigures {
  date: string;
  generations: Record<GenerationStatus, number>;
  creditsSpent: number;
  conversions: number;
  attributedConversions: number;
  /** Minor units per currency; only currencies with an attributed conversion that day. */
  attributedRevenue: Record<string, number>;
}

const emptyToNull = (id: string) => (id === '' ? null : id);

/** A fraction rounded to 4 places, or null when nobody is in the denominator. */
const rate = (numerator: number, denominator: number) =>
  denominator === 0 ? null : Math.round((numerator / denominator) * 10_000) / 10_000;

/** Conversions reported by the shop's server and the browser SDK, their attribution, and the reports over them. */
export function conversionService({ persistence, ids, clock }: Pick<Ports, 'persistence' | 'ids' | 'clock'>) {
  async function attributionOf(
    tx: Repositories,
    conversion: ConversionRecord,
    store: Store,
  ): Promise<ConversionAttribution | null> {
    if (!conversion.visitorId && !conversion.sessionId) return null;
    const window = attributionWindow(conversion.orderCreatedAt, store.attributionWindowDays);
    const candidates = await tx.visualizations.candidates(store.id, {
      visitorId: conversion.visitorId,
      sessionId: conversion.sessionId,
      ...window,
    });
    return attribute(conversion, candidates, store.attributionWindowDays);
  }

  /**
   * Records one report of an order: the first report of a (store, order) creates the conversion
   * and attributes it; later ones merge into it (see mergeReport) and re-attribute only when
   * they changed what attribution reads. One transaction, with the row locked, so a server and a
   * browser report racing each other end as one conversion.
   */
  async function record(store: Store, report: ConversionReport): Promise<ConversionRecord> {
    return persistence.transaction(async (tx) => {
      const now = clock.now();
      let existing = await tx.conversions.findByOrder(store.id, report.orderId, { forUpdate: true });
      if (!existing) {
        const { source, ...fields } = report;
        const fresh: ConversionRecord = {
          id: ids.id('conv_'),
          ...fields,
          source,
          attribution: null,
          createdAt: now,
          updatedAt: now,
        };
        fresh.attribution = await attributionOf(tx, fresh, store);
        if (await tx.conversions.insertIfAbsent(fresh)) return fresh;
        // A concurrent report of the same order committed first: merge into it instead.
        existing = (await tx.conversions.findByOrder(store.id, report.orderId, { forUpdate: true }))!;
      }
      const { record: merged, reattribute } = mergeReport(existing, report, now);
      if (reattribute) merged.attribution = await attributionOf(tx, merged, store);
      await tx.conversions.update(merged);
      return merged;
    });
  }

  /** A keyless browser call names only a store: it must exist. */
  async function publicStore(storeId: string) {
    const store = await persistence.stores.findById(storeId);
    if (!store) throw notFound('store', storeId, 'storeId');
    return store;
  }

  async function callerStore(organizationId: string, storeId: string) {
    const store = await persistence.stores.get(organizationId, storeId);
    if (!store) throw notFound('store', storeId, 'storeId');
    return store;
  }

  return {
    /** The order webhook: the body's organization and store must be the key's. */
    async reportFromServer(organizationId: string, input: OrderWebhookInput) {
      if (input.organizationId !== organizationId) {
        throw new ApiError(
          'authorization_error',
          'organization_mismatch',
          'organizationId is not the organization of this conversion key.',
          'organizationId',
        );
      }
      const store = await persistence.stores.get(organizationId, input.storeId);
      if (!store)
        throw new ApiError(
          'authorization_error',
          'store_not_allowed',
          `Store '${input.storeId}' does not belong to this conversion key's organization.`,
          'storeId',
        );
      return record(store, {
        source: 'server',
        organizationId,
        storeId: store.id,
        orderId: input.orderId,
        visitorId: emptyToNull(input.visitorId),
        sessionId: emptyToNull(input.sessionId),
        totalCents: input.totalCents,
        currency: input.currency,
        platform: input.platform,
        status: input.status,
        items: input.items,
        orderCreatedAt: input.orderCreatedAt,
      });
    },

    /** `track('$conversion')` and `identify()` from the browser, identified by store id alone. */
    async collect(input: CollectInput) {
      const store = await publicStore(input.storeId);
      if (input.type === '$identify') {
        const now = clock.now();
        await persistence.visitorIdentities.upsert({
          organizationId: store.organizationId,
          storeId: store.id,
          visitorId: input.visitorId,
          sessionId: input.sessionId,
          userId: input.userId,
          traits: input.traits,
          createdAt: now,
          updatedAt: now,
        });
        return;
      }
      await record(store, {
        source: 'browser',
        organizationId: store.organizationId,
        storeId: store.id,
        orderId: input.props.orderId,
        visitorId: input.visitorId,
        sessionId: input.sessionId,
        totalCents: input.props.totalCents,
        currency: input.props.currency,
        platform: 'custom',
        status: input.props.status,
        items: input.props.items,
        // The browser reports at the moment of the order (the confirmation page).
        orderCreatedAt: clock.now(),
      });
    },

    async list(
      organizationId: string,
      options: { storeId?: string; from?: number; to?: number; limit: number; startingAfter?: string },
    ) {
      if (options.storeId) await callerStore(organizationId, options.storeId);
      return persistence.conversions.list(organizationId, options);
    },

    /**
     * Per UTC day of [from, to) (whole days: the caller rounds the range out to midnights), every
     * day present: generations created by status, the credits they cost (failed ones are refunded,
     * so left out), and conversions by their order time, as `summary` counts them. The
     * organization's, or one of its stores'.
     */
    async daily(organizationId: string, options: { storeId?: string; from: number; to: number }) {
      const { storeId, from, to } = options;
      if (storeId !== undefined) await callerStore(organizationId, storeId);
      const scope = { organizationId, storeId };
      const [generations, conversions] = await Promise.all([
        persistence.generations.daily(scope, { from, to }),
        persistence.conversions.daily(scope, { from, to }),
      ]);
      const firstDay = Math.floor(from / dayMs);
      const days: DailyFigures[] = [];
      for (let day = firstDay; day * dayMs < to; day++) {
        days.push({
          date: new Date(day * dayMs).toISOString().slice(0, 10),
          generations: { processing: 0, complete: 0, failed: 0 },
          creditsSpent: 0,
          conversions: 0,
          attributedConversions: 0,
          attributedRevenue: {},
        });
      }
      for (const row of generations) {
        const figures = days[row.day - firstDay];
        if (!figures) continue;
        figures.generations[row.status] += row.count;
        if (row.status !== 'failed') figures.creditsSpent += row.credits;
      }
      for (const row of conversions) {
        const figures = days[row.day - firstDay];
        if (!figures) continue;
        figures.conversions += row.conversions;
        figures.attributedConversions += row.attributedConversions;
        if (row.attributedConversions > 0)
          figures.attributedRevenue[row.currency] =
            (figures.attributedRevenue[row.currency] ?? 0) + row.attributedRevenue;
      }
      return days;
    },

    /**
     * The store's numbers over [from, to): visualizations and conversions by their own times
     * (generation createdAt, order orderCreatedAt). See the README for each definition.
     */
    async summary(organizationId: string, storeId: string, range: { from: number; to: number }) {
      const store = await callerStore(organizationId, storeId);
      const [visualized, totals, conversionVisitors, identified] = await Promise.all([
        persistence.visualizations.summary(store.id, range),
        persistence.conversions.totals(store.id, range),
        persistence.conversions.visitors(store.id, range),
        persistence.visitorIdentities.visitorsSeen(store.id, range),
      ]);
      const visualizers = new Set(visualized.visitorIds);
      const seen = new Set([...visualized.visitorIds, ...conversionVisitors.seen, ...identified]);
      const converted = new Set(conversionVisitors.converted);
      const visitors = {
        visualized: visualizers.size,
        visualizedConverted: [...converted].filter((visitor) => visualizers.has(visitor)).length,
        notVisualized: [...seen].filter((visitor) => !visualizers.has(visitor)).length,
        notVisualizedConverted: [...converted].filter((visitor) => !visualizers.has(visitor)).length,
      };
      return {
        store,
        visualizations: visualized.visualizations,
        uniqueVisitorsVisualized: visualizers.size,
        conversions: totals.conversions,
        attributedConversions: totals.attributedConversions,
        attributedRevenue: totals.attributedRevenue,
        conversionRate: {
          visualized: rate(visitors.visualizedConverted, visitors.visualized),
          notVisualized: rate(visitors.notVisualizedConverted, visitors.notVisualized),
        },
        visitors,
      };
    },
  };
}
