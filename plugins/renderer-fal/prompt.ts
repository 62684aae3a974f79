import type { Mode, RenderProduct } from '../../kit/plugin.ts';

/** Merchant and shopper text on one line, so it cannot add lines that read as this service's instructions. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** A title as a JSON string: its own quotes cannot end the quoting. */
const quoted = (title: string) => JSON.stringify(oneLine(title));

/**
 * The edit instruction for a prompt-taking model (FLUX Kontext): imperative and short, as Kontext's
 * model pages advise. `withImages` says whether the products' images follow the photo in the request
 * (a multi-image model) or reach the model by their titles only.
 */
export function buildPrompt(
  request: { mode: Mode; products: Pick<RenderProduct, 'productTitle'>[]; hint: string | null },
  withImages: boolean,
): string {
  const titles = request.products.map((product) => quoted(product.productTitle)).join(', ');
  const what = withImages
    ? `the product${request.products.length > 1 ? 's' : ''} shown in the other images (${titles})`
    : titles;
  const lines =
    request.mode === 'virtual-try-on'
      ? [
          `Dress the person in the first image in ${what}.`,
          "Keep the person's face, identity, body shape, pose, background, lighting and framing unchanged.",
        ]
      : [
          `Place ${what} in the room in the first image, at a realistic scale, with matching perspective, lighting and shadows.`,
          'Keep the rest of the room and the framing unchanged.',
        ];
  const hint = request.hint ? oneLine(request.hint) : '';
  if (hint) lines.push(`Styling guidance: ${hint}`);
  return lines.join(' ');
}
