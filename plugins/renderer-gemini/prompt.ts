import type { Mode, ProductDimensions } from '../../kit/plugin.ts';

export interface PromptInput {
  mode: Mode;
  products: { productTitle: string; dimensions: ProductDimensions | null }[];
  hint: string | null;
}

const CM_PER_INCH = 2.54;

/** `200×90×95 cm (width×height×depth)`, or the known sides by name; always in cm so the model sees one unit. */
export function formatDimensions(dimensions: ProductDimensions | null): string | null {
  if (!dimensions) return null;
  const toCm = (value: number) => String(Number((dimensions.unit === 'in' ? value * CM_PER_INCH : value).toFixed(1)));
  const { width, height, depth } = dimensions;
  if (width && height && depth) return `${toCm(width)}×${toCm(height)}×${toCm(depth)} cm (width×height×depth)`;
  const known: string[] = [];
  if (width) known.push(`width ${toCm(width)} cm`);
  if (height) known.push(`height ${toCm(height)} cm`);
  if (depth) known.push(`depth ${toCm(depth)} cm`);
  return known.length ? known.join(', ') : null;
}

/**
 * Merchant and shopper text is kept to one line, so it cannot add lines that read as this
 * service's own instructions (or break the numbered list).
 */
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** A title as a JSON string: a `"` in it is escaped, so it cannot end the quoting and go on as instructions. */
const quoted = (title: string) => JSON.stringify(oneLine(title));

/**
 * The instruction sent with the photo and the product images. The images follow the text in
 * the request in this order: the customer's photo, then each product as listed here.
 */
export function buildPrompt({ mode, products, hint }: PromptInput): string {
  const plural = products.length > 1;
  const intro = plural
    ? `The following ${products.length} images show products, in this order:`
    : 'The next image shows this product:';
  const list = products
    .map((product, index) => {
      const size = mode === 'room-visualizer' ? formatDimensions(product.dimensions) : null;
      return `${index + 1}. ${quoted(product.productTitle)}${size ? `, real size ${size}` : ''}`;
    })
    .join('\n');

  const lines =
    mode === 'virtual-try-on'
      ? [
          `The first image is a photo of a person. ${intro}`,
          list,
          `Edit the photo so the person is wearing ${plural ? 'all of these products together' : 'this product'}.`,
          "Keep the person's identity, face, hair, body shape, pose and expression exactly as they are, and keep the background, lighting and framing unchanged.",
          "Make each product fit the person's body naturally, with realistic folds, lighting and shadows, and reproduce its colour, pattern and details faithfully. Use only the product itself, not its image's background or any model shown wearing it.",
        ]
      : [
          `The first image is a photo of a room. ${intro}`,
          list,
          `Edit the photo to place ${plural ? 'these products' : 'this product'} in the room at a realistic scale${products.some((p) => p.dimensions) ? ' (use the real sizes given)' : ''}, where such a product naturally belongs, with perspective, lighting and shadows that match the room.`,
          'Keep the room unchanged otherwise: walls, floor, windows, existing furniture, lighting and framing.',
          "Reproduce each product faithfully, and use only the product itself, not its image's background.",
        ];
  lines.push('Return only the edited photo.');
  const guidance = hint ? oneLine(hint) : '';
  if (guidance) lines.push(`Styling guidance: ${guidance}`);
  return lines.join('\n');
}
