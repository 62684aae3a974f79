import * as v from 'valibot';
import { browserId } from './conversion-input.ts';
import { createGenerationSchema } from './generation-input.ts';

export const widgetLimits = {
  origins: 20,
  maxDailyGenerationCap: 1_000_000,
  defaultDailyGenerationCap: 500,
  maxDailyCreditCap: 10_000_000,
} as const;

/** Credits a UTC day, or null for no cap; at least one generation's cost at the widget's size (checked by the service). */
const dailyCreditCap = v.nullable(
  v.pipe(
    v.number('must be a whole number or null'),
    v.integer('must be a whole number or null'),
    v.minValue(1, 'must be 1 or more (or null for no cap)'),
    v.maxValue(widgetLimits.maxDailyCreditCap, `must be at most ${widgetLimits.maxDailyCreditCap}`),
  ),
);

const originPattern = '^https?://[^/?#@\\s]+/?$';
const origin = new RegExp(originPattern, 'i');

/**
 * An origin as browsers send it in the `Origin` header: scheme, host and port only
 * (`https://shop.example`, `http://localhost:3000`); a trailing slash is tolerated, and the value
 * is stored normalized (lower-case host, default port dropped) so comparison is exact.
 */
export const originSchema = v.pipe(
  v.string('must be a string'),
  v.maxLength(300, 'must be at most 300 characters'),
  v.check(
    (text) => origin.test(text) && URL.canParse(text),
    'must be an origin: http(s)://host[:port], without path, query or credentials',
  ),
  // The check above as JSON Schema, for the OpenAPI document (which writes the scheme in lower case).
  v.metadata({ format: 'uri', pattern: originPattern }),
  v.transform((text) => new URL(text).origin),
);

export const createWidgetSchema = v.strictObject({
  storeId: v.pipe(
    v.string('must be a string'),
    v.minLength(1, 'must not be empty'),
    v.maxLength(64, 'must be at most 64 characters'),
  ),
  mode: createGenerationSchema.entries.mode,
  imageSize: createGenerationSchema.entries.imageSize,
  allowedOrigins: v.pipe(
    v.array(originSchema, 'must be an array of origins'),
    v.minLength(1, 'needs 1 to 20 origins'),
    v.maxLength(widgetLimits.origins, 'needs 1 to 20 origins'),
    v.transform((origins) => [...new Set(origins)]),
  ),
  dailyGenerationCap: v.optional(
    v.pipe(
      v.number('must be a whole number'),
      v.integer('must be a whole number'),
      v.minValue(1, 'must be 1 or more'),
      v.maxValue(widgetLimits.maxDailyGenerationCap, `must be at most ${widgetLimits.maxDailyGenerationCap}`),
    ),
    widgetLimits.defaultDailyGenerationCap,
  ),
  dailyCreditCap: v.optional(dailyCreditCap, null),
});

export type CreateWidgetInput = v.InferOutput<typeof createWidgetSchema>;

/** What `PATCH /v1/widgets/:id` may change; a field left out keeps its value. The store stays. */
export const updateWidgetSchema = v.strictObject({
  mode: v.optional(createWidgetSchema.entries.mode),
  imageSize: v.optional(createWidgetSchema.entries.imageSize),
  allowedOrigins: v.optional(createWidgetSchema.entries.allowedOrigins),
  dailyGenerationCap: v.optional(createWidgetSchema.entries.dailyGenerationCap.wrapped),
  /** null removes the cap. */
  dailyCreditCap: v.optional(dailyCreditCap),
});

export type UpdateWidgetInput = v.InferOutput<typeof updateWidgetSchema>;

/** A keyless generation from the widget: mode and size come from the widget, the rest as in the API. */
export const widgetGenerationSchema = v.strictObject({
  visitorId: browserId,
  sessionId: browserId,
  image: createGenerationSchema.entries.image,
  products: createGenerationSchema.entries.products,
  hint: createGenerationSchema.entries.hint,
});

export type WidgetGenerationInput = v.InferOutput<typeof widgetGenerationSchema>;
