import * as v from 'valibot';
import { generationModes, imageSizes } from './generation.ts';
import { choices, maxCharacters } from './text.ts';

/** Decoded bytes of the customer photo, uploaded or fetched. */
export const maxImageBytes = 10 * 1024 * 1024;
export const maxIdempotencyKeyLength = 255;
export const metadataLimits = { pairs: 40, keyLength: 40, valueLength: 500 } as const;

/** A photo sent inline; the pattern is also the OpenAPI document's, which states the media type in lower case. */
const dataUriPattern = '^data:image/[a-z0-9.+-]+;base64,[A-Za-z0-9+/]*={0,2}$';
const dataUri = new RegExp(dataUriPattern, 'i');
const maxImageUrlLength = 2048;

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
  v.check(
    (d) => d.width !== undefined || d.height !== undefined || d.depth !== undefined,
    'needs at least one of width, height, depth',
  ),
);

/**
 * JSON numbers beyond 2^53 lose digits when parsed (12345678901234567890 becomes
 * 12345678901234567000), which would silently break attribution: such ids must come as strings.
 */
export const numericProductId = v.pipe(
  v.number(),
  v.finite(),
  v.check(
    (id: number) => Math.abs(id) <= Number.MAX_SAFE_INTEGER,
    `must be within ±${Number.MAX_SAFE_INTEGER} as a number, beyond which JSON numbers lose digits; send such an id as a string`,
  ),
);

export const productSchema = v.strictObject({
  productId: v.union(
    [
      v.pipe(v.string(), v.minLength(1, 'must not be empty'), maxCharacters(200, 'must be at most 200 characters')),
      numericProductId,
    ],
    'must be a non-empty string or a number',
  ),
  productTitle: v.pipe(
    v.string('must be a string'),
    v.trim(),
    v.minLength(1, 'must not be empty'),
    maxCharacters(500, 'must be at most 500 characters'),
  ),
  // https, or this service's own CDN (checked by the service, which knows its public URL).
  imageUrl: absoluteUrl,
  productUrl: v.optional(absoluteUrl),
  dimensions: v.optional(dimensions),
});

const metadataKey = v.pipe(
  v.string(),
  v.minLength(1, 'keys must not be empty'),
  maxCharacters(metadataLimits.keyLength, `keys must be at most ${metadataLimits.keyLength} characters`),
);
const metadataValue = v.pipe(
  v.string('values must be strings'),
  maxCharacters(metadataLimits.valueLength, `values must be at most ${metadataLimits.valueLength} characters`),
);

/**
 * The caller's own string pairs, every key kept as sent. Not `v.record`, which drops the keys
 * `__proto__`, `constructor` and `prototype` unchecked and uncounted: here they are ordinary keys.
 * The output is the parsed object itself, whose keys are all its own data properties (JSON.parse
 * defines them; nothing is assigned), so none touches a prototype.
 */
const metadata = v.pipe(
  v.custom<Record<string, unknown>>(
    (input) => typeof input === 'object' && input !== null && !Array.isArray(input),
    'must be an object of string values',
  ),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const record = dataset.value;
    const keys = Object.keys(record);
    if (keys.length > metadataLimits.pairs)
      return addIssue({ message: `must have at most ${metadataLimits.pairs} pairs` });
    for (const key of keys) {
      const issue = v.safeParse(metadataKey, key).issues?.[0] ?? v.safeParse(metadataValue, record[key]).issues?.[0];
      if (issue)
        return addIssue({
          message: issue.message,
          input: record[key],
          path: [{ type: 'object', origin: 'value', input: record, key, value: record[key] }],
        });
    }
  }),
  v.transform((record) => record as Record<string, string>),
);

export const createGenerationSchema = v.strictObject({
  mode: v.picklist(generationModes, `must be ${choices(generationModes)}`),
  image: v.pipe(
    v.string('must be a string'),
    v.check(
      (text) => text.startsWith('https://') || text.startsWith('data:'),
      'must be an https URL or a data:image/*;base64, URI',
    ),
    v.check(
      (text) => !text.startsWith('data:') || dataUri.test(text),
      'must be a data URI of the form data:image/*;base64,...',
    ),
    v.check(
      (text) => !text.startsWith('https://') || (text.length <= maxImageUrlLength && URL.canParse(text)),
      'must be a valid https URL',
    ),
    // What the checks above accept, said as JSON Schema for the OpenAPI document.
    v.metadata({
      description: `The customer photo: an https URL (at most ${maxImageUrlLength} characters) or a \`data:image/<type>;base64,<data>\` URI, at most ${maxImageBytes / 1024 / 1024} MB decoded.`,
      anyOf: [{ format: 'uri', pattern: '^https://', maxLength: maxImageUrlLength }, { pattern: dataUriPattern }],
    }),
  ),
  products: v.pipe(
    v.array(productSchema, 'must be an array'),
    v.minLength(1, 'needs 1 to 3 products'),
    v.maxLength(3, 'needs 1 to 3 products'),
  ),
  hint: v.nullish(v.pipe(v.string('must be a string'), maxCharacters(500, 'must be at most 500 characters'))),
  imageSize: v.optional(v.picklist(imageSizes, `must be ${choices(imageSizes)}`), '1K'),
  metadata: v.nullish(metadata),
});

export type CreateGenerationInput = v.InferOutput<typeof createGenerationSchema>;

/** The bytes of a `data:image/*;base64,` URI (already validated by the schema). */
export function decodeDataUri(uri: string): Buffer {
  return Buffer.from(uri.slice(uri.indexOf(',') + 1), 'base64');
}

/**
 * How many bytes a validated data URI decodes to, read from its length without decoding it: an
 * oversized photo is refused (one check, one code: image_too_large) before any work is spent on it.
 */
export function dataUriBytes(uri: string): number {
  const payload = uri.length - uri.indexOf(',') - 1;
  const padding = uri.endsWith('==') ? 2 : uri.endsWith('=') ? 1 : 0;
  return Math.floor(((payload - padding) * 3) / 4);
}
