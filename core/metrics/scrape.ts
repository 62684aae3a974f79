import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether a scrape may read the metrics: always without a `metrics.token`, else only with
 * `Authorization: Bearer <token>` (compared in constant time: the digests have one length).
 */
export function scrapeAllowed(token: string | undefined, authorization: string | null | undefined): boolean {
  if (token === undefined) return true;
  const sent = /^Bearer (.+)$/i.exec(authorization?.trim() ?? '')?.[1];
  if (sent === undefined) return false;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(sent), digest(token));
}
