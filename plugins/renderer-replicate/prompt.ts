import type { Mode, ProductDimensions } from '../../kit/plugin.ts';

export interface PromptInput {
  mode: Mode;
  products: { productTitle: string; dimensions: ProductDimensions | null }[];
  hint: string | null;
  /** How many product images the model receives after the photo; the others are described by title only. */
  imagesSent: number;
}

/** Merchant and shopper text on one line, so it cannot add lines that read as our instructions. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

function size(dimensions: ProductDimensions | null): string | null {
  if (!dimensions) return null;
  const cm = (value: number) => String(Number((dimensions.unit === 'in' ? value * 2.54 : value).toFixed(1)));
  const sides = (['width', 'height', 'depth'] as const)
    .filter((side) => dimensions[side])
    .map((side) => `${side} ${cm(dimensions[side]!)} cm`);
  return sides.length ? sides.join(', ') : null;
}

/** The products' titles, for a model field that takes a short description of what to put on. */
export const productTitles = (products: PromptInput['products']) =>
  products.map((product) => oneLine(product.productTitle)).join('; ');

/**
 * The instruction for an image-editing model: the photo is the first image, then the product
 * images it receives in the listed order. Titles are JSON-quoted so a `"` cannot end the quoting.
 */
export function buildPrompt({ mode, products, hint, imagesSent }: PromptInput): string {
  const list = products
    .map((product, index) => {
      const real = mode === 'room-visualizer' ? size(product.dimensions) : null;
      const shown = index < imagesSent ? ` (image ${index + 2})` : '';
      return `${index + 1}. ${JSON.stringify(oneLine(product.productTitle))}${shown}${real ? `, real size ${real}` : ''}`;
    })
    .join('\n');
  const lines =
    mode === 'virtual-try-on'
      ? [
          'The first image is a photo of a person. Edit it so the person is wearing these products:',
          list,
          "Keep the person's identity, face, body, pose, background, lighting and framing unchanged; reproduce each product's colour, pattern and details faithfully.",
        ]
      : [
          'The first image is a photo of a room. Edit it to place these products in the room at a realistic scale, where each naturally belongs:',
          list,
          "Match the room's perspective, lighting and shadows, and keep everything else in the room and the framing unchanged.",
        ];
  if (hint) lines.push(`Styling guidance: ${oneLine(hint)}`);
  return lines.join('\n');
}
