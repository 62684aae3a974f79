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

/** A line of what was bought, as the shop shows it: the product in one colour. */
export interface OrderLine {
  productId: string;
  title: string;
  /** The colour's name, or null when the cart did not say (or named none of the product's). */
  colorName: string | null;
  quantity: number;
  totalCents: number;
}

type RequestedLine = { productId?: unknown; colorId?: unknown; quantity?: unknown } | null;

/** The cart's lines that name a product of the catalogue in a sensible quantity (1 to 100). */
function requestedLines(json: string | null) {
  let requested: unknown;
  try {
    requested = JSON.parse(json || '[]');
  } catch {
    requested = [];
  }
  return (Array.isArray(requested) ? (requested as RequestedLine[]) : []).flatMap((entry) => {
    const product = findDemoProduct(String(entry?.productId));
    const quantity = Number(entry?.quantity);
    if (!product || !Number.isInteger(quantity) || quantity < 1 || quantity > 100) return [];
    const color = product.colors.find((each) => each.id === entry?.colorId) ?? null;
    return [{ product, color, quantity }];
  });
}

/**
 * The cart the checkout form posts (`[{ productId, colorId, quantity }]` as JSON), priced from the
 * catalogue as a shop's server does, never from the browser's prices, one item per product (what
 * the order webhook records); unknown products and odd quantities are dropped.
 */
export function pricedItems(json: string | null): ConversionItem[] {
  const items = new Map<string, ConversionItem>();
  for (const { product, quantity } of requestedLines(json)) {
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

/** The same cart as the shop shows it: a line per product and colour, priced from the catalogue. */
export function orderLines(json: string | null): OrderLine[] {
  const lines = new Map<string, OrderLine>();
  for (const { product, color, quantity } of requestedLines(json)) {
    const key = `${product.id}:${color?.id ?? ''}`;
    const line = lines.get(key) ?? {
      productId: product.id,
      title: product.title,
      colorName: color?.name ?? null,
      quantity: 0,
      totalCents: 0,
    };
    line.quantity += quantity;
    line.totalCents = product.priceCents * line.quantity;
    lines.set(key, line);
  }
  return [...lines.values()];
}

const rememberedOrders = 1_000;
const ordersPlaced = new Map<string, OrderLine[]>();

/**
 * The shop's own record of what each order contained, colours included: the order webhook records
 * products, not their variants. Kept in memory for the latest orders, as the demo has no database;
 * after a restart an older confirmation shows its products without their colours.
 */
export function rememberOrder(orderId: string, lines: OrderLine[]) {
  ordersPlaced.set(orderId, lines);
  if (ordersPlaced.size > rememberedOrders) ordersPlaced.delete(ordersPlaced.keys().next().value!);
}

export const linesOfOrder = (orderId: string) => ordersPlaced.get(orderId) ?? null;

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
