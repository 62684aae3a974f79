import type { Mode } from '../../kit/plugin.ts';

/**
 * How one fal model takes this service's inputs: which input field gets the photo, the products and
 * the prompt. Every field a model does not name is left out of the request.
 */
export interface ModelMapping {
  /** The endpoint id, as in `https://queue.fal.run/<id>`. */
  id: string;
  /** The field that takes the shopper's photo alone (a URL or data URI). */
  photo?: string;
  /** The field that takes one product's image (models that take one garment: one run per product, chained). */
  product?: string;
  /** The field that takes a list: the photo first, then each product's image. */
  images?: string;
  /** The field that takes the instruction text. */
  prompt?: string;
  /** Fixed input fields sent as they are (a category, a mode, an output format). */
  extra?: Record<string, unknown>;
  /**
   * The model pastes the shopper's own pixels back into its answer (an inpainting try-on, say),
   * so its images are composites, not generated whole: see `provenanceOf` in fal-renderer.ts.
   */
  keepsPhotoPixels?: boolean;
}

/**
 * The models whose documented inputs this adapter knows, by endpoint id (fal's model pages,
 * `https://fal.ai/models/<id>/llms.txt`). Any other model is named with a `ModelMapping`.
 */
export const knownModels: Record<string, Omit<ModelMapping, 'id'>> = {
  // FASHN v1.6: `model_image` and `garment_image` ("URL or base64"), one garment per call;
  // `category: auto` lets it tell tops from bottoms; PNG keeps the garment's detail.
  'fal-ai/fashn/tryon/v1.6': {
    photo: 'model_image',
    product: 'garment_image',
    extra: { category: 'auto', mode: 'balanced', output_format: 'png' },
  },
  // FLUX.1 Kontext [pro] and [max]: one `image_url` and a `prompt`; the products reach it as words only.
  'fal-ai/flux-pro/kontext': { photo: 'image_url', prompt: 'prompt', extra: { output_format: 'png' } },
  'fal-ai/flux-pro/kontext/max': { photo: 'image_url', prompt: 'prompt', extra: { output_format: 'png' } },
  // Its multi-image variant: `image_urls`, so the model sees the products themselves.
  'fal-ai/flux-pro/kontext/max/multi': { images: 'image_urls', prompt: 'prompt', extra: { output_format: 'png' } },
};

/** What each mode renders with when the config names no models. */
export const defaultModels: Record<Mode, string> = {
  'virtual-try-on': 'fal-ai/fashn/tryon/v1.6',
  'room-visualizer': 'fal-ai/flux-pro/kontext/max/multi',
};

/** A model as config names it: a known endpoint id, or a mapping for any other. */
export type ModelChoice = string | ModelMapping;

/** The mapping for a configured model; an unknown id without a mapping is a config error, named at start. */
export function resolveModel(mode: Mode, choice: ModelChoice): ModelMapping {
  if (typeof choice !== 'string') {
    if (!choice.photo && !choice.images)
      throw new Error(`the fal model for ${mode} (${choice.id}) needs a \`photo\` or \`images\` field in its mapping.`);
    return choice;
  }
  const known = knownModels[choice];
  if (!known) {
    throw new Error(
      `the fal model for ${mode} (${choice}) is not one whose inputs the fal renderer knows (${Object.keys(knownModels).join(', ')}); name it with a mapping: { id, photo, product | images, prompt }.`,
    );
  }
  return { id: choice, ...known };
}
