/** The statuses a conversion may have (the spec's Conversion table). */
const statuses = ['pending', 'processing', 'on-hold', 'completed', 'refunded', 'cancelled'];
const known = ['orderId', 'totalCents', 'currency', 'status', 'items'];

export interface ConversionItem {
  productId: string;
  quantity: number;
  priceCents: number;
  totalCents: number;
}

export interface ConversionProps {
  orderId: string;
  totalCents: number;
  currency: string;
  status: string;
  items: ConversionItem[];
}

const isCount = (value: unknown, min: number): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= min;

/** A non-empty id of at most 200 characters; whole numbers are accepted and sent as text. */
function idText(value: unknown): string | null {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return typeof value === 'string' && value.trim() !== '' && value.length <= 200 ? value : null;
}

/**
 * Checks `track('$conversion', props)` like the server does and applies the spec's defaults
 * (totalCents 0, currency USD, status completed, items []). Returns the props to send, or a
 * message naming the first field at fault.
 */
export function validateConversion(props: unknown): ConversionProps | string {
  if (!props || typeof props !== 'object' || Array.isArray(props))
    return "props must be an object such as { orderId: 'A-1001', totalCents: 4999 }.";
  const input = props as Record<string, unknown>;
  const orderId = idText(input.orderId);
  if (orderId === null) return 'props.orderId is required: a non-empty string of at most 200 characters.';
  const { totalCents = 0, currency = 'USD', status = 'completed', items = [] } = input;
  if (!isCount(totalCents, 0))
    return `props.totalCents must be a whole number of cents, 0 or more (got ${JSON.stringify(totalCents)}).`;
  if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency))
    return `props.currency must be a 3-letter uppercase code such as 'USD' (got ${JSON.stringify(currency)}).`;
  if (typeof status !== 'string' || statuses.indexOf(status) < 0)
    return `props.status must be one of ${statuses.join(', ')} (got ${JSON.stringify(status)}).`;
  if (!Array.isArray(items)) return 'props.items must be an array of { productId, quantity, priceCents, totalCents }.';
  const checked: ConversionItem[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as Record<string, unknown> | null;
    const at = `props.items[${i}]`;
    if (!item || typeof item !== 'object')
      return `${at} must be an object { productId, quantity, priceCents, totalCents }.`;
    const productId = idText(item.productId);
    if (productId === null) return `${at}.productId is required: the productId given to Visualizer.open().`;
    if (!isCount(item.quantity, 1)) return `${at}.quantity must be a whole number of at least 1.`;
    if (!isCount(item.priceCents, 0)) return `${at}.priceCents must be a whole number of cents, 0 or more.`;
    if (!isCount(item.totalCents, 0)) return `${at}.totalCents must be a whole number of cents, 0 or more.`;
    if (item.totalCents !== item.priceCents * item.quantity) {
      return `${at}.totalCents must equal priceCents × quantity (${item.priceCents} × ${item.quantity} = ${item.priceCents * item.quantity}, got ${item.totalCents}).`;
    }
    checked.push({ productId, quantity: item.quantity, priceCents: item.priceCents, totalCents: item.totalCents });
  }
  for (const key of Object.keys(input)) {
    if (known.indexOf(key) < 0)
      console.warn(
        `[Visualizer] track('$conversion'): ignoring unknown property '${key}' (known: ${known.join(', ')}).`,
      );
  }
  return { orderId, totalCents, currency, status, items: checked };
}
