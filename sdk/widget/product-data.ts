import type { CartProduct, ProductData, ProductImage } from '../shared/types.ts';

const text = (value: unknown, max: number) => typeof value === 'string' && value.trim() !== '' && value.length <= max;

/**
 * Checks `open(widgetId, productData)` before anything is shown: the spec's three required fields,
 * and the shapes of the optional ones. Returns a message naming the first field at fault, or null.
 */
export function productDataProblem(widgetId: unknown, data: unknown): string | null {
  if (!text(widgetId, 100)) return 'open(widgetId, productData): widgetId must be the widget id (wdg_…).';
  if (!data || typeof data !== 'object') return 'open(widgetId, productData): productData must be an object with productId, productTitle and productImage.';
  const product = data as Record<string, unknown>;
  const id = product.productId;
  if (!(text(id, 200) || (typeof id === 'number' && Number.isFinite(id)))) return 'open(): productData.productId is required (a non-empty string or a number).';
  if (!text(product.productTitle, 500)) return 'open(): productData.productTitle is required (a non-empty string of at most 500 characters).';
  if (!text(product.productImage, 2048)) return "open(): productData.productImage is required (the product image's URL).";
  if (product.productUrl !== undefined && !text(product.productUrl, 2048)) return 'open(): productData.productUrl must be a URL when given.';
  if (product.productImages !== undefined) {
    if (!Array.isArray(product.productImages)) return 'open(): productData.productImages must be an array of { id, src, alt }.';
    for (let i = 0; i < product.productImages.length; i++) {
      const image = product.productImages[i] as Record<string, unknown> | null;
      if (!image || typeof image !== 'object' || !text(image.src, 2048) || (image.id === undefined || image.id === null)) {
        return `open(): productData.productImages[${i}] must be { id, src, alt }.`;
      }
    }
  }
  for (const callback of ['onAddToCart', 'onViewCart', 'onCheckout']) {
    if (product[callback] !== undefined && typeof product[callback] !== 'function') return `open(): productData.${callback} must be a function when given.`;
  }
  return null;
}

/** The product `onAddToCart` receives, rendered with `variation`'s image when one is chosen. */
export function cartProduct(data: ProductData): CartProduct {
  const product: CartProduct = { productId: data.productId, productTitle: data.productTitle, productImage: data.productImage };
  if (data.productUrl) product.productUrl = data.productUrl;
  return product;
}

/** An absolute URL for a product image given relative to the page (`/img/shirt.png`). */
export function absoluteUrl(url: string): string {
  try {
    return new URL(url, document.baseURI).href;
  } catch {
    return url;
  }
}

export type { ProductImage };
