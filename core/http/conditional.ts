/**
 * Whether an `If-None-Match` header matches the representation's ETag (RFC 9110 §13.1.2): a list of
 * tags compared weakly (`W/"x"` matches `"x"`), or `*`. A match is answered 304.
 */
export function ifNoneMatchMatches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = etag.replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => {
    const candidate = tag.trim().replace(/^W\//, '');
    return candidate === '*' || candidate === opaque;
  });
}
