import type { CartProduct, ProductData, ProductImage } from '../shared/types.ts';
import { pageUrlProblem, productImageProblem } from './url-rules.ts';

const text = (value: unknown, max: number) => typeof value === 'string' && value.trim() !== '' && value.length <= max;
/** The value as the message shows it: quoted, and short, for a data: URI can be megabytes. */
const shown = (value: string) => JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);

/**
 * Checks `open(widgetId, productData)` before anything is shown: the spec's three required fields,
 * the shapes of the optional ones, and the URLs by the service's own rules (`base` is the service
 * the script came from). Returns a message starting with the field at fault, or null.
 */
export function productDataProblem(widgetId: unknown, data: unknown, base: string): string | null {
  if (!text(widgetId, 100)) return "widgetId must be the widget's id: open('wdg_…', productData).";
  if (!data || typeof data !== 'object')
    return 'productData must be an object with productId, productTitle and productImage: open(widgetId, productData).';
  const product = data as Record<string, unknown>;
  const id = product.productId;
  if (!(text(id, 200) || (typeof id === 'number' && Number.isFinite(id))))
    return 'productId is required by open(): a non-empty string or a number.';
  // Beyond 2^53 a JSON number loses digits, and attribution would silently miss: the service refuses it.
  if (typeof id === 'number' && Math.abs(id) > Number.MAX_SAFE_INTEGER)
    return `productId must be within ±${Number.MAX_SAFE_INTEGER} as a number; send a larger id as a string.`;
  if (!text(product.productTitle, 500))
    return 'productTitle is required by open(): a non-empty string of at most 500 characters.';
  if (!text(product.productImage, 2048)) return "productImage is required by open(): the product image's URL.";
  const imageProblem = productImageProblem(product.productImage as string, base);
  if (imageProblem) return `productImage ${imageProblem}; open() got ${shown(product.productImage as string)}.`;
  if (product.productUrl !== undefined) {
    const problem = typeof product.productUrl === 'string' ? pageUrlProblem(product.productUrl) : 'must be a string';
    if (problem) return `productUrl ${problem} when given; open() got ${shown(String(product.productUrl))}.`;
  }
  if (product.productImages !== undefined) {
    if (!Array.isArray(product.productImages)) return 'productImages must be an array of { id, src, alt } when given.';
    for (let i = 0; i < product.productImages.length; i++) {
      const image = product.productImages[i] as Record<string, unknown> | null;
      if (
        !image ||
        typeof image !== 'object' ||
        !text(image.src, 2048) ||
        image.id === undefined ||
        image.id === null
      ) {
        return `productImages[${i}] must be { id, src, alt }.`;
      }
      const problem = productImageProblem(image.src as string, base);
      if (problem) return `productImages[${i}].src ${problem}; open() got ${shown(image.src as string)}.`;
    }
  }
  for (const callback of ['onAddToCart', 'onViewCart', 'onCheckout']) {
    if (product[callback] !== undefined && typeof product[callback] !== 'function')
      return `${callback} must be a function when given.`;
  }
  return null;
}

/** The product `onAddToCart` receives, rendered with `variation`'s image when one is chosen. */
export function cartProduct(data: ProductData): CartProduct {
  const product: CartProduct = {
    productId: data.productId,
    productTitle: data.productTitle,
    productImage: data.productImage,
  };
  if (data.productUrl) product.productUrl = data.productUrl;
  return product;
}

export type { ProductImage };
