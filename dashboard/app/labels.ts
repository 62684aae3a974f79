import type { Generation } from './api.ts';

/** `demo_top_up` → "Demo top up": a machine word as a reader would write it. */
export function prettify(word: string): string {
  const spaced = word.replace(/[_-]+/g, ' ').trim();
  return spaced ? spaced[0]!.toUpperCase() + spaced.slice(1) : word;
}

/**
 * Every reason the service writes into the credit ledger, as people say it. `visualizer credits
 * add --reason` takes any text, so an unknown reason is shown prettified rather than raw.
 */
const ledgerReasons: Record<string, string> = {
  initial_grant: 'Initial credits',
  manual_grant: 'Credits added by the operator',
  demo_top_up: 'Demo credits',
  generation: 'Charged for a generation',
  generation_refund: 'Refund of a generation',
};

export const ledgerReason = (reason: string) => ledgerReasons[reason] ?? prettify(reason);

export const modeLabel = (mode: Generation['mode']) =>
  mode === 'virtual-try-on' ? 'Virtual try-on' : mode === 'room-visualizer' ? 'Room visualizer' : prettify(mode);

/** The products of a generation by title ("Red shirt and Blue scarf"), or their ids when untitled. */
export function productNames(generation: Pick<Generation, 'products'>): string {
  const names = generation.products.map((product) => product.productTitle || String(product.productId));
  return names.length <= 1 ? (names[0] ?? 'No product') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** What a generation of this image size costs (and gives back when it fails). */
/**
 * What each image size costs (the spec's 1K = 1, 2K = 2, 4K = 3), kept once for the dashboard: app
 * modules reach the core only through core/http/app-module-api.ts, which is server code.
 */
const creditCost = { '1K': 1, '2K': 2, '4K': 3 } as const satisfies Record<Generation['imageSize'], number>;

/** The image sizes a widget or generation may have, smallest first. */
export const imageSizes = Object.keys(creditCost) as Generation['imageSize'][];

export const creditsFor = (imageSize: Generation['imageSize']): number => creditCost[imageSize];
