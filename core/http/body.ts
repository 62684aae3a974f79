import { assertBodySize, type H3Event } from 'h3';
import * as v from 'valibot';
import { ApiError } from '../domain/errors.ts';
import { bodyTooLarge } from './errors.ts';

export const defaultBodyLimit = 1024 * 1024;

/**
 * Reads a JSON request body: the content type must be JSON, the size within `limit` (counted
 * as the bytes arrive, so a lying Content-Length does not help), and the text must parse.
 */
export async function readJson(event: H3Event, limit = defaultBodyLimit): Promise<unknown> {
  const contentType = event.req.headers.get('content-type') ?? '';
  if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(contentType)) {
    throw new ApiError('invalid_request_error', 'unsupported_media_type', "The body must be JSON, sent with 'Content-Type: application/json'.", null, 415);
  }
  return parseJson(await readText(event, limit));
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ApiError('invalid_request_error', 'invalid_json', `The body is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * The body as text, refused with 413 as soon as it passes `limit` bytes (declared or counted as the
 * bytes arrive). On Node the request stream is read directly: wrapping it in web streams costs more
 * than the rest of a small request.
 */
export async function readText(event: H3Event, limit: number): Promise<string> {
  const request = event.runtime?.node?.req;
  if (!request) {
    try {
      assertBodySize(event, limit);
      return await event.req.text();
    } catch (error) {
      if ((error as { status?: number }).status === 413) throw bodyTooLarge(limit);
      throw error;
    }
  }
  if (Number(request.headers['content-length'] ?? 0) > limit) throw bodyTooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw bodyTooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

/** Renders a valibot issue path as the spec's `param`: `products[1].imageUrl`. */
export function issueParam(issue: v.BaseIssue<unknown>): string | null {
  if (!issue.path?.length) return null;
  return issue.path.reduce<string>((param, item) => {
    const key = item.key as string | number;
    return typeof key === 'number' ? `${param}[${key}]` : param ? `${param}.${key}` : String(key);
  }, '');
}

/** Validates input against a schema; the first failure becomes a 400 naming the field. */
export function validate<S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, input);
  if (result.success) return result.output;
  const issue = result.issues[0];
  const param = issueParam(issue);
  // valibot reports a missing key as "Invalid key: Expected "x" but received undefined".
  const message = issue.input === undefined && issue.received === 'undefined' ? 'is required' : issue.message;
  throw new ApiError('invalid_request_error', 'parameter_invalid', param ? `${param}: ${message}` : message, param);
}

export async function readValidJson<S extends v.GenericSchema>(event: H3Event, schema: S, limit?: number): Promise<v.InferOutput<S>> {
  return validate(schema, await readJson(event, limit));
}
