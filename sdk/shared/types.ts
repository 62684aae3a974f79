/**
 * Types shared by the loader (`embed.js`), the widget UI (`widget.js`) and the npm package, whose
 * declarations publish this file. Only types live here: the loader and the widget never share code
 * at run time, they talk through `WidgetModule`.
 */

export interface Identity {
  visitorId: string;
  sessionId: string;
}

/** One entry of `productData.productImages`: a variation the shopper can pick (colour, finish…). */
export interface ProductImage {
  id: string | number;
  /** As `ProductData.productImage`. */
  src: string;
  alt?: string;
}

export interface AddToCartResult {
  success: boolean;
  error?: string;
}

/** What the shop hands to `Visualizer.open(widgetId, productData)`. */
export interface ProductData {
  productId: string | number;
  productTitle: string;
  /** https, or an image of the service's own store (`{base}/cdn/…`): the only images the service takes. */
  productImage: string;
  productImages?: ProductImage[];
  productUrl?: string;
  onAddToCart?: (
    product: CartProduct,
    quantity: number,
    variation: ProductImage | null,
  ) => AddToCartResult | Promise<AddToCartResult> | void;
  onViewCart?: () => void;
  onCheckout?: () => void;
}

/** The product `onAddToCart` receives. */
export interface CartProduct {
  productId: string | number;
  productTitle: string;
  productImage: string;
  productUrl?: string;
}

/** What the loader gives the widget on each `open`. */
export interface WidgetContext {
  /** The service's base URL, e.g. `https://visualizer.example` (no trailing slash). */
  base: string;
  storeId: string;
  identity(): Identity;
}

/** The widget bundle registers this as `window.__visualizerWidget` when it runs. */
export interface WidgetModule {
  open(context: WidgetContext, widgetId: unknown, productData: unknown): Promise<boolean>;
  close(): void;
}

/** `window.Visualizer` once the loader has run; what the npm package's `createVisualizer` returns. */
export interface VisualizerSdk {
  /**
   * The shopper's ids. While consent is pending (see `consent`) they live in this page's memory;
   * once consent is given, ids an earlier consent stored replace them.
   */
  getIdentity(): Identity;
  track(event: string, props?: unknown): Promise<boolean>;
  open(widgetId: string, productData: ProductData): Promise<boolean>;
  identify(userId: string, traits?: Record<string, string | number | boolean>): Promise<boolean>;
  preload(): Promise<boolean>;
  /**
   * Passes on the shopper's answer to the shop's consent banner. Only needed when the SDK starts
   * with consent pending (`data-consent="pending"` on the script tag, a `consent` call queued
   * through the stub before `embed.js` loads, or `createVisualizer({ consent: 'pending' })`):
   * until `consent(true)` nothing is written to or read from `localStorage` or `sessionStorage`,
   * and the ids live in memory for the page. Otherwise the SDK stores at once, as it always has.
   *
   * `consent(true)`: from now on the ids (`visualizer.vid`, `visualizer.sid`) and what the SDK
   * remembers to send each conversion and `identify` once (`visualizer.sent`, `visualizer.uid`)
   * are kept in storage; ids an earlier consent stored are kept and used from now on, else this
   * page's are written. `consent(false)`: every `visualizer.*` key is removed from both storages
   * and the SDK goes on in memory with the ids it has. The SDK does not remember the answer: the
   * shop's consent banner does, and passes it on on every page.
   *
   * Returns `false`, logging why, when `granted` is not a boolean.
   */
  consent(granted: boolean): boolean;
  /** Calls `callback(Visualizer)` once the loader has run (at once when it has). */
  ready(callback: (sdk: VisualizerSdk) => void): void;
  readonly version: string;
}
