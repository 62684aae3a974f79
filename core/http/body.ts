import type { H3Event } from 'h3';
import * as v from 'valibot';
import { ApiError } from '../domain/errors.ts';
import { escapeUnstorable, isStorableText } from '../domain/text.ts';
import { bodyTooLarge } from './errors.ts';

export const defaultBodyLimit = 1024 * 1024;

/**
 * Reads a JSON request body: the content type must be JSON, the size within `limit` (counted
 * as the bytes arrive, so a lying Content-Length does not help), and the text must parse.
 */
export async function readJson(event: H3Event, limit = defaultBodyLimit): Promise<unknown> {
  requireJsonContentType(event);
  return parseJson(await readText(event, limit));
}

export function requireJsonContentType(event: H3Event) {
  const contentType = event.req.headers.get('content-type') ?? '';
  if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(contentType)) {
    throw new ApiError(
      'invalid_request_error',
      'unsupported_media_type',
      "The body must be JSON, sent with 'Content-Type: application/json'.",
    );
  }
}

export function parseJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ApiError(
      'invalid_request_error',
      'invalid_json',
      `The body is not valid JSON: ${(error as Error).message}`,
    );
  }
  refuseUnstorableText(text, value);
  return value;
}

/**
 * Refuses a body holding a string, value or key, that a database cannot store unchanged (U+0000, a
 * lone surrogate; see isStorableText) with a 400 naming where it is, whatever the route's schema.
 * Only a `\u` escape puts either into JSON text decoded from UTF-8 (raw control characters are not
 * JSON, and decoded UTF-8 is well-formed), so bodies without one are not walked. The walk keeps its
 * own stack: JSON.parse accepts nesting far deeper than the call stack allows.
 */
function refuseUnstorableText(text: string, body: unknown) {
  if (!text.includes('\\u') && text.isWellFormed()) return;
  interface Node {
    value: unknown;
    key: string | number | null;
    parent: Node | null;
  }
  const stack: Node[] = [{ value: body, key: null, parent: null }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (typeof node.key === 'string' && !isStorableText(node.key)) throw unstorable(node.key, pathOf(node), 'the key ');
    const { value } = node;
    if (typeof value === 'string') {
      if (!isStorableText(value)) throw unstorable(value, pathOf(node), '');
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--)
        stack.push({ value: value[index], key: index, parent: node });
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value);
      for (let index = keys.length - 1; index >= 0; index--)
        stack.push({ value: (value as Record<string, unknown>)[keys[index]!], key: keys[index]!, parent: node });
    }
  }

  function pathOf(node: Node) {
    const path: Array<string | number> = [];
    for (let at: Node | null = node; at && at.key !== null; at = at.parent) path.push(at.key);
    return path.reverse();
  }

  function unstorable(text: string, path: Array<string | number>, what: string) {
    const param = path.length > 0 ? paramOf(path) : null;
    const rule = text.includes('\u0000')
      ? 'must not contain U+0000 (NUL)'
      : 'must be well-formed Unicode, without a lone surrogate (U+D800 to U+DFFF)';
    return new ApiError(
      'invalid_request_error',
      'parameter_invalid',
      param ? `${param}: ${what}${rule}` : `The body ${rule}`,
      param,
    );
  }
}

/** A field's path as the spec's `param`: `products[1].imageUrl`; odd characters in keys escaped. */
function paramOf(path: ReadonlyArray<string | number>): string {
  return path.reduce<string>((param, key) => {
    if (typeof key === 'number') return `${param}[${key}]`;
    const name = isStorableText(key) ? key : escapeUnstorable(key);
    return param ? `${param}.${name}` : name;
  }, '');
}

/** The body as text, refused with 413 as soon as it passes `limit` bytes (see bodyChunks). */
export async function readText(event: H3Event, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of bodyChunks(event, limit)) {
    chunks.push(chunk);
    size += chunk.length;
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

/**
 * The body's chunks as they arrive, refused with 413 as soon as they pass `limit` bytes (declared or
 * counted as they arrive). On Node the request stream is read directly: wrapping it in web streams
 * costs more than the rest of a small request.
 */
export async function* bodyChunks(event: H3Event, limit: number): AsyncGenerator<Buffer> {
  const request = event.runtime?.node?.req;
  if (Number((request ? request.headers['content-length'] : event.req.headers.get('content-length')) ?? 0) > limit)
    throw bodyTooLarge(limit);
  // Stopping early keeps node's request alive, so the rest of the body is drained and its end seen (unread-body.ts).
  const source = request ? request.iterator({ destroyOnReturn: false }) : (event.req.body ?? []);
  let size = 0;
  for await (const chunk of source as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > limit) throw bodyTooLarge(limit);
    yield Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
  }
}

/** Renders a valibot issue path as the spec's `param`: `products[1].imageUrl`. */
export function issueParam(issue: v.BaseIssue<unknown>): string | null {
  if (!issue.path?.length) return null;
  return paramOf(issue.path.map((item) => (typeof item.key === 'number' ? item.key : String(item.key))));
}

/** Validates input against a schema; the first failure becomes a 400 naming the field. */
export function validate<S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> {
  // Only the first issue is reported, and finding every one of a million wrong keys or items took seconds.
  const result = v.safeParse(schema, input, { abortEarly: true });
  if (result.success) return result.output;
  const issue = result.issues[0];
  const param = issueParam(issue);
  // valibot reports a missing key as "Invalid key: Expected "x" but received undefined".
  const message = issue.input === undefined && issue.received === 'undefined' ? 'is required' : issue.message;
  throw new ApiError('invalid_request_error', 'parameter_invalid', param ? `${param}: ${message}` : message, param);
}

export async function readValidJson<S extends v.GenericSchema>(
  event: H3Event,
  schema: S,
  limit?: number,
): Promise<v.InferOutput<S>> {
  return validate(schema, await readJson(event, limit));
}
