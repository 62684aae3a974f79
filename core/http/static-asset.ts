import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { H3Event } from 'h3';
import { ifNoneMatchMatches } from './conditional.ts';

/** A file the app serves from memory: its bytes, gzipped when it is text, each with a strong validator. */
export interface StaticAsset {
  type: string;
  body: Uint8Array;
  etag: string;
  gzip?: { body: Uint8Array; etag: string };
}

export function staticAsset(body: Uint8Array, type: string): StaticAsset {
  const digest = createHash('sha256').update(body).digest('base64url').slice(0, 27);
  // Images and other binary formats are compressed already.
  const text = type.startsWith('text/') || type.startsWith('application/json');
  return {
    type,
    body,
    etag: `"${digest}"`,
    ...(text ? { gzip: { body: gzipSync(body, { level: 9 }), etag: `"${digest}-gz"` } } : {}),
  };
}

/**
 * Answers with the asset, gzipped when the client accepts it, or 304 when its `If-None-Match`
 * names the variant it would get.
 */
export function serveStaticAsset(
  event: H3Event,
  asset: StaticAsset,
  options: { cacheControl: string; headers?: Record<string, string> },
): Response {
  const gzip = asset.gzip && /\bgzip\b/i.test(event.req.headers.get('accept-encoding') ?? '') ? asset.gzip : null;
  const etag = gzip ? gzip.etag : asset.etag;
  const headers: Record<string, string> = { 'cache-control': options.cacheControl, etag, ...options.headers };
  if (asset.gzip) headers.vary = 'Accept-Encoding';
  // A 304 carries the validators and caching headers only (RFC 9110 §15.4.5): no content headers.
  if (ifNoneMatchMatches(event.req.headers.get('if-none-match'), etag))
    return new Response(null, { status: 304, headers });
  const body = gzip ? gzip.body : asset.body;
  const content: Record<string, string> = {
    'content-type': asset.type,
    'content-length': String(body.length),
    'x-content-type-options': 'nosniff',
  };
  if (gzip) content['content-encoding'] = 'gzip';
  return new Response(body as Uint8Array<ArrayBuffer>, { status: 200, headers: { ...headers, ...content } });
}
