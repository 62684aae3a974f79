import type { EngineProvenance } from '../../kit/plugin.ts';

/**
 * Which Replicate model renders a mode, and which of its input fields get what. Every model on
 * Replicate has its own input schema, so the mapping is configuration; the models below have
 * defaults.
 */

/** `owner/name` (an official model, run at its latest version) or `owner/name:version`. */
export interface ModelRef {
  owner: string;
  name: string;
  version: string | null;
}

/**
 * The reference as the official SDK parses it (replicate-javascript lib/identifier.js): owner,
 * name without `/` or `:`, then an optional `:version`. Null when it is not one.
 */
export function parseModelRef(ref: string): ModelRef | null {
  const match = /^(?<owner>[^/]+)\/(?<name>[^/:]+)(:(?<version>.+))?$/.exec(ref);
  if (!match?.groups) return null;
  const { owner, name, version } = match.groups as { owner: string; name: string; version?: string };
  return { owner, name, version: version ?? null };
}

/** Where each of our inputs goes in a model's `input` object. */
export interface InputMapping {
  /** The field that gets the shopper's photo (a data URI). When `products` names the same field, it is an array: the photo first, then the products. */
  photo: string;
  /**
   * The product images: one field name that takes an array of them, or one field per image in
   * order (more products than fields run as a chain of predictions). Unset: the model takes no
   * product image, and the prompt describes them.
   */
  products?: string | string[];
  /** The field that gets the instruction text. */
  prompt?: string;
  /** A field that gets the products' titles only (a try-on model's garment description, say). */
  productTitles?: string;
  /** Fixed inputs sent as they are (output format, aspect ratio …). */
  fixed?: Record<string, unknown>;
  /**
   * How the model's images are made (see the engine's `provenance`): `created` when it draws the
   * whole image, `edited` when it pastes its work into the photo's own pixels (inpainting).
   */
  makes?: 'created' | 'edited';
}

/**
 * Defaults for the models the docs name, keyed `owner/name` (any version). Field names are those
 * of each model's input schema on replicate.com (its "API" tab).
 */
export const knownModels: Record<string, InputMapping> = {
  // One input image: the products reach it through the prompt only.
  'black-forest-labs/flux-kontext-pro': {
    photo: 'input_image',
    prompt: 'prompt',
    fixed: { aspect_ratio: 'match_input_image', output_format: 'png' },
    makes: 'created',
  },
  'black-forest-labs/flux-kontext-max': {
    photo: 'input_image',
    prompt: 'prompt',
    fixed: { aspect_ratio: 'match_input_image', output_format: 'png' },
    makes: 'created',
  },
  // Takes a list of images: the photo first, then each product.
  'google/nano-banana': {
    photo: 'image_input',
    products: 'image_input',
    prompt: 'prompt',
    fixed: { aspect_ratio: 'match_input_image', output_format: 'png' },
    makes: 'created',
  },
  // IDM-VTON masks the garment area of the photo and inpaints one product into it.
  'cuuupid/idm-vton': { photo: 'human_img', products: ['garm_img'], productTitles: 'garment_des', makes: 'edited' },
};

/** The mapping for a model: the configured one, else the known default; null when neither. */
export function mappingFor(ref: ModelRef, configured: InputMapping | undefined): InputMapping | null {
  return configured ?? knownModels[`${ref.owner}/${ref.name}`] ?? null;
}

/**
 * One engine has one `provenance`, but each mode may run another model. When every configured
 * model draws its whole image, the render is `c2pa.created` from `trainedAlgorithmicMedia` (as
 * Gemini's). When any of them keeps the photo's own pixels around its work (inpainting), the
 * engine declares what that one makes, `c2pa.edited` of a `compositeWithTrainedAlgorithmicMedia`:
 * the claim that holds for every image it may return, since both say a trained model made it and
 * only the composite also says the shopper's photo is in it.
 */
export function provenanceOf(mappings: InputMapping[]): EngineProvenance {
  return mappings.some((mapping) => (mapping.makes ?? 'edited') === 'edited')
    ? { action: 'c2pa.edited', digitalSourceType: 'compositeWithTrainedAlgorithmicMedia' }
    : { action: 'c2pa.created', digitalSourceType: 'trainedAlgorithmicMedia' };
}

export interface InputImages {
  photo: string;
  products: string[];
  prompt: string;
  titles: string;
}

/** The prediction's `input` object for this mapping. */
export function buildInput(mapping: InputMapping, images: InputImages): Record<string, unknown> {
  const input: Record<string, unknown> = { ...mapping.fixed };
  if (mapping.prompt) input[mapping.prompt] = images.prompt;
  if (mapping.productTitles) input[mapping.productTitles] = images.titles;
  if (typeof mapping.products === 'string') {
    input[mapping.products] = mapping.products === mapping.photo ? [images.photo, ...images.products] : images.products;
  } else if (Array.isArray(mapping.products)) {
    mapping.products.forEach((field, index) => {
      if (images.products[index] !== undefined) input[field] = images.products[index];
    });
  }
  if (mapping.products !== mapping.photo) input[mapping.photo] = images.photo;
  return input;
}

/** How many of `products` product images one prediction takes (the rest reach it in the prompt only, or in a later prediction). */
export function productImagesSent(mapping: InputMapping, products: number): number {
  if (typeof mapping.products === 'string') return products;
  if (Array.isArray(mapping.products)) return Math.min(products, mapping.products.length);
  return 0;
}
