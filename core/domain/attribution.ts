import type { ConversionAttribution, ConversionItem } from './conversion.ts';
import type { GenerationStatus } from './generation.ts';

export const dayMs = 86_400_000;

/** A generation as attribution sees it. */
export interface AttributionCandidate {
  id: string;
  storeId: string;
  visitorId: string | null;
  sessionId: string | null;
  status: GenerationStatus;
  productIds: string[];
  createdAt: number;
}

/** What attribution needs to know of a conversion. */
export interface AttributableConversion {
  storeId: string;
  visitorId: string | null;
  sessionId: string | null;
  items: ConversionItem[];
  orderCreatedAt: number;
}

/** The period before an order in which a visualization earns it: [orderCreatedAt − window, orderCreatedAt]. */
export function attributionWindow(orderCreatedAt: number, windowDays: number) {
  return { from: orderCreatedAt - windowDays * dayMs, to: orderCreatedAt };
}

const latestFirst = (a: AttributionCandidate, b: AttributionCandidate) =>
  b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/**
 * Attributes a conversion to the latest complete generation of the same store made for the same
 * visitor (by visitorId; only when none matches, by sessionId) within the window before the
 * order (never after it). Items whose productId the generation visualized (compared as strings)
 * make the attributed revenue; an order without items (a lead) is attributed with revenue 0.
 * Returns null when no generation qualifies, or when the conversion carries neither id.
 */
export function attribute(
  conversion: AttributableConversion,
  candidates: AttributionCandidate[],
  windowDays: number,
): ConversionAttribution | null {
  const { from, to } = attributionWindow(conversion.orderCreatedAt, windowDays);
  const eligible = candidates
    .filter(
      (generation) =>
        generation.storeId === conversion.storeId &&
        generation.status === 'complete' &&
        generation.createdAt >= from &&
        generation.createdAt <= to,
    )
    .sort(latestFirst);
  const byVisitor = conversion.visitorId
    ? eligible.find((generation) => generation.visitorId === conversion.visitorId)
    : undefined;
  const generation =
    byVisitor ??
    (conversion.sessionId ? eligible.find((candidate) => candidate.sessionId === conversion.sessionId) : undefined);
  if (!generation) return null;

  const visualized = new Set(generation.productIds.map(String));
  const attributedItems: string[] = [];
  let attributedRevenueCents = 0;
  for (const item of conversion.items) {
    const productId = String(item.productId);
    if (!visualized.has(productId)) continue;
    attributedRevenueCents += item.totalCents;
    if (!attributedItems.includes(productId)) attributedItems.push(productId);
  }
  return { generationId: generation.id, attributedRevenueCents, attributedItems };
}
