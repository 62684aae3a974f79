export type ConversionStatus = 'pending' | 'processing' | 'on-hold' | 'completed' | 'refunded' | 'cancelled';

/** Who reported an order: the shop's server (order webhook), the browser SDK, or both (merged). */
export const conversionSources = ['server', 'browser', 'both'] as const;
export type ConversionSource = (typeof conversionSources)[number];

export interface ConversionItem {
  productId: string;
  quantity: number;
  priceCents: number;
  totalCents: number;
}

/** Which visualization earned a conversion, and the revenue of the items it showed. */
export interface ConversionAttribution {
  generationId: string;
  attributedRevenueCents: number;
  /** Product ids (as strings) of the order's items that the generation visualized, in item order. */
  attributedItems: string[];
}

export interface ConversionRecord {
  id: string;
  organizationId: string;
  storeId: string;
  orderId: string;
  /** Null when the report carried none (an empty string is stored as null). */
  visitorId: string | null;
  sessionId: string | null;
  totalCents: number;
  currency: string;
  platform: string;
  status: ConversionStatus;
  items: ConversionItem[];
  source: ConversionSource;
  attribution: ConversionAttribution | null;
  orderCreatedAt: number;
  createdAt: number;
  updatedAt: number;
}

/** Orders in these statuses stay stored (with their attribution) but count neither as conversions nor as revenue. */
export const voidedStatuses: readonly ConversionStatus[] = ['refunded', 'cancelled'];
export const isVoided = (status: ConversionStatus) => voidedStatuses.includes(status);

/** One report of an order, from the order webhook (`server`) or the browser SDK (`browser`): the stored fields it carries. */
export type ConversionReport = Omit<ConversionRecord, 'id' | 'source' | 'attribution' | 'createdAt' | 'updatedAt'> & {
  source: 'server' | 'browser';
};

const hasServer = (source: ConversionSource) => source !== 'browser';

/**
 * Merges a later report of the same (storeId, orderId) into the stored conversion, so an order
 * never counts twice:
 *
 * - visitorId, sessionId: a server report's non-empty id replaces the stored one (the keyless
 *   browser route is open to anyone, so its ids must not outrank the authenticated order webhook,
 *   and a later server report is the shop's correction). A browser report, or an empty id in a
 *   server report, only fills a gap: it never changes or erases a known id.
 * - A server report is the order's truth: over a browser-only row it replaces total, currency,
 *   status, items and orderCreatedAt; over a server row it updates the status (in arrival order),
 *   fills items when there were none, and fills the total (with its currency) when it was 0.
 * - A browser report never changes what a server reported; over a browser-only row it fills
 *   items and a zero total the same way and leaves the status alone.
 *
 * `reattribute` says whether anything attribution depends on (ids, items, order time) changed.
 */
export function mergeReport(
  existing: ConversionRecord,
  report: ConversionReport,
  now: number,
): { record: ConversionRecord; reattribute: boolean } {
  const record: ConversionRecord = { ...existing, updatedAt: now };
  const authoritative = report.source === 'server';
  record.visitorId = authoritative
    ? (report.visitorId ?? existing.visitorId)
    : (existing.visitorId ?? report.visitorId);
  record.sessionId = authoritative
    ? (report.sessionId ?? existing.sessionId)
    : (existing.sessionId ?? report.sessionId);
  record.source = existing.source === report.source ? existing.source : 'both';

  if (report.source === 'server' && !hasServer(existing.source)) {
    Object.assign(record, {
      totalCents: report.totalCents,
      currency: report.currency,
      status: report.status,
      items: report.items,
      platform: report.platform,
      orderCreatedAt: report.orderCreatedAt,
    });
  } else if (report.source === 'server' || !hasServer(existing.source)) {
    // Server over server, or browser over browser: same authority, so later news fills gaps.
    if (report.source === 'server') record.status = report.status;
    if (existing.items.length === 0 && report.items.length > 0) record.items = report.items;
    if (existing.totalCents === 0 && report.totalCents > 0) {
      record.totalCents = report.totalCents;
      record.currency = report.currency;
    }
  }

  const reattribute =
    record.visitorId !== existing.visitorId ||
    record.sessionId !== existing.sessionId ||
    record.orderCreatedAt !== existing.orderCreatedAt ||
    JSON.stringify(record.items) !== JSON.stringify(existing.items);
  return { record, reattribute };
}
