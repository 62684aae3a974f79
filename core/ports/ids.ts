/**
 * Id generator port. Adapter: `random` (the default).
 * The guarantees an adapter gives are on `IdGenerator` (what an editor shows on hover).
 */

/**
 * Makes resource ids and secrets.
 *
 * An adapter must return ids of the form `prefix + 24 base62 characters` that are unique
 * across processes and unpredictable (ids appear in URLs a customer may share), and
 * secrets of at least 32 base62 characters drawn from a cryptographic source. Ids may start
 * with a timestamp (the default adapter's do, for index locality); nothing may rely on it.
 */
export interface IdGenerator {
  /** A resource id such as `agen_` + 24 base62 characters. */
  id(prefix: string): string;
  /** A random base62 string of `length` characters for keys and tokens. */
  secret(length: number): string;
}
