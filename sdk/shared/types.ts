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
  getIdentity(): Identity;
  track(event: string, props?: unknown): Promise<boolean>;
  open(widgetId: string, productData: ProductData): Promise<boolean>;
  identify(userId: string, traits?: Record<string, string | number | boolean>): Promise<boolean>;
  preload(): Promise<boolean>;
  /** Calls `callback(Visualizer)` once the loader has run (at once when it has). */
  ready(callback: (sdk: VisualizerSdk) => void): void;
  readonly version: string;
}
