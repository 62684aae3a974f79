/**
 * `@visualizer/sdk`: the browser SDK as an ES module, for shops that bundle their own scripts.
 *
 *   import { createVisualizer } from '@visualizer/sdk';
 *   const visualizer = createVisualizer({ baseUrl: 'https://visualizer.example', storeId: 'store_…' });
 *
 * The object it returns is the one the script tag puts on `window.Visualizer`. The widget UI is
 * a separate chunk of this package, imported on the first `open` or `preload`.
 */
import { createSdk } from '../../loader/sdk.ts';
import type { VisualizerSdk } from '../../shared/types.ts';

export type {
  AddToCartResult,
  CartProduct,
  Identity,
  ProductData,
  ProductImage,
  VisualizerSdk,
} from '../../shared/types.ts';

export interface VisualizerOptions {
  /**
   * Where the service is, as the script tag's `src` would name it without `/widgets/embed.js`:
   * `https://visualizer.example`, or `https://shop.example/visualizer` behind a path prefix.
   */
  baseUrl: string;
  /** The store (`store_…`) conversions and identities are reported for. */
  storeId: string;
  /**
   * `'pending'`: nothing is written to or read from `localStorage` or `sessionStorage` until
   * `consent(true)`; the ids live in memory meanwhile (see `VisualizerSdk.consent`). `'granted'`,
   * the default, stores at once, as the SDK always has: whether to ask first is the shop's choice.
   */
  consent?: 'pending' | 'granted';
}

/** `baseUrl` without query, fragment or trailing slashes; only absolute http(s) URLs are taken. */
function serviceBase(baseUrl: unknown): string {
  let url: URL | null = null;
  try {
    url = typeof baseUrl === 'string' ? new URL(baseUrl) : null;
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new TypeError(
      `createVisualizer(): baseUrl must be the service's absolute http(s) URL, such as 'https://visualizer.example' (got ${JSON.stringify(baseUrl)}).`,
    );
  }
  return url.origin + url.pathname.replace(/\/+$/, '');
}

/**
 * The SDK for one store. Unlike its methods, which report mistakes on the console and resolve
 * `false`, this throws a TypeError on options it cannot work with: it runs once, where a
 * developer sees it.
 */
export function createVisualizer(options: VisualizerOptions): VisualizerSdk {
  // Not `?.`: a null `options` must show as null in the error below, as a caller passed it.
  // biome-ignore lint/complexity/useOptionalChain: see above.
  const base = serviceBase(options && options.baseUrl);
  // biome-ignore lint/complexity/useOptionalChain: see above.
  const storeId = options && options.storeId;
  if (typeof storeId !== 'string' || !storeId.trim()) {
    throw new TypeError(
      `createVisualizer(): storeId must be your store's id, such as 'store_…' (got ${JSON.stringify(storeId)}).`,
    );
  }
  const consent = options.consent ?? 'granted';
  if (consent !== 'pending' && consent !== 'granted') {
    throw new TypeError(`createVisualizer(): consent must be 'pending' or 'granted' (got ${JSON.stringify(consent)}).`);
  }
  const sdk = createSdk({
    base,
    storeId,
    loadWidget: () => import('../../widget/widget-module.ts').then((module) => module.widget),
    missingStoreId: 'createVisualizer() was given no storeId',
    consent,
  });
  return sdk;
}
