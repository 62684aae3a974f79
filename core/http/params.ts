import { getRouterParam, type H3Event } from 'h3';
import * as v from 'valibot';
import { ApiError, notFound } from '../domain/errors.ts';
import { couldBeId, escapeUnstorable, isStorableText, maxIdLength } from '../domain/text.ts';

/**
 * Ids and cursors from the URL, checked before any reaches the database: Postgres refuses U+0000
 * in text with an error (which was a 500), and text that cannot be an id names nothing anyway.
 */

/** The route's `name` parameter; one that cannot be an id is a 404, as an unknown id is. */
export function pathId(event: H3Event, name: string, what: string): string {
  const id = getRouterParam(event, name, { decode: true }) ?? '';
  if (!couldBeId(id))
    throw notFound(what, escapeUnstorable(id.length > maxIdLength ? `${id.slice(0, maxIdLength)}…` : id), name);
  return id;
}

/** The query string's parameters; a value with U+0000 (which URL decoding can produce) is a 400 naming it. */
export function queryOf(event: H3Event): Record<string, string> {
  const query = Object.fromEntries(event.url.searchParams);
  for (const [name, value] of Object.entries(query)) {
    if (!isStorableText(value)) {
      const param = escapeUnstorable(name);
      throw new ApiError(
        'invalid_request_error',
        'parameter_invalid',
        `${param}: must not contain U+0000 (NUL)`,
        param,
      );
    }
  }
  return query;
}

/** `starting_after`: an id the list returned. */
export const cursorSchema = v.pipe(
  v.string(),
  v.check(couldBeId, `must be the id of a listed item (1 to ${maxIdLength} characters)`),
);

/** `limit` (1–100, default 10) and `starting_after`: how every list is paged. */
export const pageQuerySchema = v.object({
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d+$/, 'must be a whole number'),
      v.transform(Number),
      v.minValue(1, 'must be 1 to 100'),
      v.maxValue(100, 'must be 1 to 100'),
    ),
    '10',
  ),
  starting_after: v.optional(cursorSchema),
});
