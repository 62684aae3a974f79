import * as v from 'valibot';
import { numericProductId } from './generation-input.ts';
import { maxCharacters } from './text.ts';

/** Order statuses of the spec; `refunded` and `cancelled` void an order (see conversion.ts). */
export const conversionStatuses = ['pending', 'processing', 'on-hold', 'completed', 'refunded', 'cancelled'] as const;

export const conversionLimits = {
  items: 200,
  idLength: 200,
  browserIdLength: 128,
  traits: 20,
  traitKeyLength: 40,
  traitValueLength: 500,
} as const;

const isoDate = /^(\d{4})-(\d{2})-(\d{2})$/;
const isoDateTime =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;

/**
 * Epoch ms of an ISO 8601 date (`2025-03-01`, read as midnight UTC) or date-time with a zone
 * (`2025-03-01T14:30:00.000Z`, `…+02:00`); null when malformed or not a real calendar moment
 * (February 30th, 24:00), which `Date.parse` would silently roll over.
 */
export function parseIsoTime(text: string): number | null {
  const date = isoDate.exec(text);
  const parts = date ?? isoDateTime.exec(text);
  if (!parts) return null;
  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (probe.getUTCFullYear() !== year || probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day || year < 1970)
    return null;
  if (date) return probe.getTime();
  const [hour, minute, second] = [Number(parts[4]), Number(parts[5]), Number(parts[6] ?? 0)];
  if (hour > 23 || minute > 59 || second > 59) return null;
  const millis = parts[7] ? Math.floor(Number(`0.${parts[7]}`) * 1000) : 0;
  let offsetMinutes = 0;
  if (!parts[8]) {
    const [offsetHours, offsetMins] = [Number(parts[10]), Number(parts[11])];
    if (offsetHours > 23 || offsetMins > 59) return null;
    offsetMinutes = (parts[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  return Date.UTC(year, month - 1, day, hour, minute, second, millis) - offsetMinutes * 60_000;
}

const cents = (what = 'must be') =>
  v.pipe(
    v.number('must be a whole number of cents'),
    v.integer('must be a whole number of cents'),
    v.minValue(0, `${what} 0 or more`),
    v.maxValue(Number.MAX_SAFE_INTEGER, 'is too large'),
  );

/**
 * Item product ids are compared as strings with the productIds given to the widget; numbers are
 * accepted and kept as their decimal text, within the range a generation's productId has.
 */
const productId = v.union(
  [
    v.pipe(
      v.string(),
      v.minLength(1, 'must not be empty'),
      maxCharacters(conversionLimits.idLength, `must be at most ${conversionLimits.idLength} characters`),
    ),
    v.pipe(numericProductId, v.transform(String)),
  ],
  'must be a non-empty string',
);

export const conversionItemSchema = v.pipe(
  v.strictObject({
    productId,
    quantity: v.pipe(
      v.number('must be a whole number'),
      v.integer('must be a whole number'),
      v.minValue(1, 'must be 1 or more'),
      v.maxValue(1_000_000, 'must be at most 1000000'),
    ),
    priceCents: cents(),
    totalCents: cents(),
  }),
  v.forward(
    v.check((item) => item.totalCents === item.priceCents * item.quantity, 'must equal priceCents × quantity'),
    ['totalCents'],
  ),
);

const items = v.pipe(
  v.array(conversionItemSchema, 'must be an array of order items'),
  v.maxLength(conversionLimits.items, `must have at most ${conversionLimits.items} items`),
);
const currency = v.pipe(
  v.string('must be a string'),
  v.regex(/^[A-Z]{3}$/, 'must be a 3-letter uppercase currency code such as USD'),
);
const status = v.picklist(conversionStatuses, `must be one of ${conversionStatuses.join(', ')}`);
const orderId = v.pipe(
  v.string('must be a string'),
  v.minLength(1, 'must not be empty'),
  maxCharacters(conversionLimits.idLength, `must be at most ${conversionLimits.idLength} characters`),
);
const storeId = v.pipe(
  v.string('must be a string'),
  v.minLength(1, 'must not be empty'),
  maxCharacters(64, 'must be at most 64 characters'),
);

/** Tracking ids passed through the shop's own form: may be empty (then the order is recorded but not attributed). */
const passedThroughId = v.pipe(
  v.string('must be a string (empty when unknown)'),
  v.trim(),
  maxCharacters(conversionLimits.browserIdLength, `must be at most ${conversionLimits.browserIdLength} characters`),
);

/** Ids the browser SDK generates itself: always present. */
export const browserId = v.pipe(
  v.string('must be a string'),
  v.minLength(1, 'must not be empty'),
  maxCharacters(conversionLimits.browserIdLength, `must be at most ${conversionLimits.browserIdLength} characters`),
);

/** The order webhook body: the spec's Conversion table, field by field. */
export const orderWebhookSchema = v.strictObject({
  orderId,
  storeId,
  organizationId: v.pipe(
    v.string('must be a string'),
    v.minLength(1, 'must not be empty'),
    maxCharacters(64, 'must be at most 64 characters'),
  ),
  visitorId: passedThroughId,
  sessionId: passedThroughId,
  totalCents: cents(),
  currency,
  platform: v.literal('custom', "must be 'custom'"),
  status,
  orderCreatedAt: v.pipe(
    v.string('must be an ISO 8601 date or date-time string'),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const at = parseIsoTime(dataset.value);
      if (at === null) {
        addIssue({
          message: 'must be an ISO 8601 date (2025-03-01) or date-time with a time zone (2025-03-01T14:30:00Z)',
        });
        return NEVER;
      }
      return at;
    }),
  ),
  items,
});

export type OrderWebhookInput = v.InferOutput<typeof orderWebhookSchema>;

/** `track('$conversion', props)`: the spec's defaults applied here as well as in the SDK. */
const conversionProps = v.strictObject({
  orderId,
  totalCents: v.optional(cents(), 0),
  currency: v.optional(currency, 'USD'),
  status: v.optional(status, 'completed'),
  items: v.optional(items, []),
});

const traitValue = v.union(
  [
    v.pipe(
      v.string(),
      maxCharacters(
        conversionLimits.traitValueLength,
        `must be at most ${conversionLimits.traitValueLength} characters`,
      ),
    ),
    v.pipe(v.number(), v.finite()),
    v.boolean(),
  ],
  'must be a string, a number or a boolean',
);

const traits = v.pipe(
  v.record(
    v.pipe(
      v.string(),
      v.minLength(1, 'keys must not be empty'),
      maxCharacters(
        conversionLimits.traitKeyLength,
        `keys must be at most ${conversionLimits.traitKeyLength} characters`,
      ),
    ),
    traitValue,
    'must be an object',
  ),
  v.check(
    (record) => Object.keys(record).length <= conversionLimits.traits,
    `must have at most ${conversionLimits.traits} traits`,
  ),
);

/** The keyless collection endpoint's body: one browser event. */
export const collectSchema = v.variant(
  'type',
  [
    v.strictObject({
      type: v.literal('$conversion'),
      storeId,
      visitorId: browserId,
      sessionId: browserId,
      props: conversionProps,
    }),
    v.strictObject({
      type: v.literal('$identify'),
      storeId,
      visitorId: browserId,
      sessionId: browserId,
      userId: v.pipe(
        v.string('must be a string'),
        v.trim(),
        v.minLength(1, 'must not be empty'),
        maxCharacters(conversionLimits.idLength, `must be at most ${conversionLimits.idLength} characters`),
      ),
      traits: v.optional(traits, {}),
    }),
  ],
  "must be '$conversion' or '$identify'",
);

export type CollectInput = v.InferOutput<typeof collectSchema>;
