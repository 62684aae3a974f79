import * as v from 'valibot';

/** Decoded bytes of the customer photo, uploaded or fetched. */
export const maxImageBytes = 10 * 1024 * 1024;
export const maxIdempotencyKeyLength = 255;
export const metadataLimits = { pairs: 40, keyLength: 40, valueLength: 500 } as const;

const dataUri = /^data:image\/[a-z0-9.+-]+;base64,([A-Za-z0-9+/]*={0,2})$/i;

/** Base64 of 10 MB is 4/3 as long; checked on the text so an oversized upload is not decoded first. */
const maxDataUriLength = Math.ceil(maxImageBytes / 3) * 4 + 64;

const absoluteUrl = v.pipe(
  v.string('must be a string'),
  v.maxLength(2048, 'must be at most 2048 characters'),
  v.url('must be an absolute URL'),
  v.regex(/^https?:\/\//i, 'must be an http or https URL'),
);

const dimensions = v.pipe(
  v.strictObject({
    width: v.optional(v.pipe(v.number('must be a number'), v.gtValue(0, 'must be above 0'), v.maxValue(100_000))),
    height: v.optional(v.pipe(v.number('must be a number'), v.gtValue(0, 'must be above 0'), v.maxValue(100_000))),
    depth: v.optional(v.pipe(v.number('must be a number'), v.gtValue(0, 'must be above 0'), v.maxValue(100_000))),
    unit: v.optional(v.picklist(['cm', 'in'], "must be 'cm' or 'in'"), 'cm'),
  }),
  v.check((d) => d.width !== undefined || d.height !== undefined || d.depth !== undefined, 'needs at least one of width, height, depth'),
);

export const productSchema = v.strictObject({
  productId: v.union(
    [
      v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(200, 'must be at most 200 characters')),
      v.pipe(v.number(), v.finite()),
    ],
    'must be a non-empty string or a number',
  ),
  productTitle: v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(500, 'must be at most 500 characters')),
  // https, or this service's own CDN (checked by the service, which knows its public URL).
  imageUrl: absoluteUrl,
  productUrl: v.optional(absoluteUrl),
  dimensions: v.optional(dimensions),
});

const metadata = v.pipe(
  v.record(
    v.pipe(v.string(), v.minLength(1, 'keys must not be empty'), v.maxLength(metadataLimits.keyLength, `keys must be at most ${metadataLimits.keyLength} characters`)),
    v.pipe(v.string('values must be strings'), v.maxLength(metadataLimits.valueLength, `values must be at most ${metadataLimits.valueLength} characters`)),
    'must be an object of string values',
  ),
  v.check((record) => Object.keys(record).length <= metadataLimits.pairs, `must have at most ${metadataLimits.pairs} pairs`),
);

export const createGenerationSchema = v.strictObject({
  mode: v.picklist(['virtual-try-on', 'room-visualizer'], "must be 'virtual-try-on' or 'room-visualizer'"),
  image: v.pipe(
    v.string('must be a string'),
    v.check((text) => text.startsWith('https://') || text.startsWith('data:'), 'must be an https URL or a data:image/*;base64, URI'),
    v.check((text) => !text.startsWith('data:') || text.length <= maxDataUriLength, 'must be at most 10 MB'),
    v.check((text) => !text.startsWith('data:') || dataUri.test(text), 'must be a data URI of the form data:image/*;base64,...'),
    v.check((text) => !text.startsWith('https://') || (text.length <= 2048 && URL.canParse(text)), 'must be a valid https URL'),
  ),
  products: v.pipe(v.array(productSchema, 'must be an array'), v.minLength(1, 'needs 1 to 3 products'), v.maxLength(3, 'needs 1 to 3 products')),
  hint: v.nullish(v.pipe(v.string('must be a string'), v.maxLength(500, 'must be at most 500 characters'))),
  imageSize: v.optional(v.picklist(['1K', '2K', '4K'], "must be '1K', '2K' or '4K'"), '1K'),
  metadata: v.nullish(metadata),
});

export type CreateGenerationInput = v.InferOutput<typeof createGenerationSchema>;

/** The bytes of a `data:image/*;base64,` URI (already validated by the schema). */
export function decodeDataUri(uri: string): Buffer {
  return Buffer.from(uri.slice(uri.indexOf(',') + 1), 'base64');
}
