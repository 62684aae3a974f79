import type { ConversionItem } from '../core/http/app-module-api.ts';
import { findDemoProduct } from './catalogue.ts';

/** What the demo shop's server sends to the order webhook. */
export interface DemoOrder {
  orderId: string;
  storeId: string;
  organizationId: string;
  visitorId: string;
  sessionId: string;
  totalCents: number;
  currency: 'USD';
  platform: 'custom';
  status: 'completed';
  orderCreatedAt: string;
  items: ConversionItem[];
}

/**
 * The cart the checkout form posts (`[{ productId, quantity }]` as JSON), priced from the catalogue
 * as a shop's server does, never from the browser's prices; unknown products and odd quantities are dropped.
 */
export function pricedItems(json: string | null): ConversionItem[] {
  let requested: unknown;
  try {
    requested = JSON.parse(json || '[]');
  } catch {
    requested = [];
  }
  const items = new Map<string, ConversionItem>();
  for (const entry of Array.isArray(requested)
    ? (requested as Array<{ productId?: unknown; quantity?: unknown } | null>)
    : []) {
    const product = findDemoProduct(String(entry?.productId));
    const quantity = Number(entry?.quantity);
    if (!product || !Number.isInteger(quantity) || quantity < 1 || quantity > 100) continue;
    const item = items.get(product.id) ?? {
      productId: product.id,
      quantity: 0,
      priceCents: product.priceCents,
      totalCents: 0,
    };
    item.quantity += quantity;
    item.totalCents = item.priceCents * item.quantity;
    items.set(product.id, item);
  }
  return [...items.values()];
}

/** Reports the order as a shop's server would: the order webhook, with the shop's conversion key. */
export async function reportOrder(
  publicUrl: string,
  conversionKey: string,
  order: DemoOrder,
): Promise<{ ok: boolean; status: number; answer: unknown }> {
  try {
    const response = await fetch(`${publicUrl}/api/webhooks/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${conversionKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(order),
      signal: AbortSignal.timeout(15_000),
    });
    const answer = await response.json().catch(() => null);
    return { ok: response.ok, status: response.status, answer };
  } catch (error) {
    return {
      ok: false,
      status: 0,
      answer: { error: { message: `The order webhook could not be reached: ${(error as Error).message}` } },
    };
  }
}
