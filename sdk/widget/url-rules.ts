/**
 * The service's rules for the URLs a generation carries (core/domain/generation-input.ts, and
 * `ownCdnKey` in core/services/generations.ts), checked in the browser: `open()` refuses what a
 * generation would be refused for, before the shopper spends a photo on it.
 */

const maxUrlLength = 2048;
const keyCharacters = /^[A-Za-z0-9/_.-]+$/;
const endsInExtension = /[^/.]\.[A-Za-z0-9]+$/;

/** `url` made absolute against the page, as the widget sends it, or null when it is no URL. */
export function absoluteUrl(url: string): string | null {
  try {
    return new URL(url, document.baseURI).href;
  } catch {
    return null;
  }
}

/** A key the service's image store could hold (core/domain/blob-keys.ts `keyProblem`). */
function isStoreKey(key: string): boolean {
  const segments = key.split('/');
  return (
    key.length <= 512 &&
    keyCharacters.test(key) &&
    segments.every((part) => part !== '' && part !== '.' && part !== '..') &&
    endsInExtension.test(key)
  );
}

/**
 * Why the service would refuse `url` as a product image, or null: it takes https, or an image of
 * its own store (`{base}/cdn/{key}`), which it reads from storage rather than over the network.
 */
export function productImageProblem(url: string, base: string): string | null {
  const absolute = absoluteUrl(url);
  if (absolute === null) return 'must be a URL';
  if (absolute.length > maxUrlLength) return `must be at most ${maxUrlLength} characters`;
  if (absolute.startsWith('https://')) return null;
  const own = `${base}/cdn/`;
  if (base && absolute.startsWith(own) && isStoreKey(absolute.slice(own.length))) return null;
  return `must be an https URL or an image of this service (${own}…)`;
}

/** Why the service would refuse `url` as a product page link, or null: http or https. */
export function pageUrlProblem(url: string): string | null {
  const absolute = absoluteUrl(url);
  if (absolute === null || !/^https?:\/\//.test(absolute)) return 'must be an http or https URL';
  return absolute.length > maxUrlLength ? `must be at most ${maxUrlLength} characters` : null;
}
