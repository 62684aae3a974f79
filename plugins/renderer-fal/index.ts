import * as v from 'valibot';
import { definePlugin } from '../../kit/plugin.ts';
import { createFalRenderer } from './fal-renderer.ts';
import { defaultModels } from './models.ts';

export { createFalRenderer, provenanceOf } from './fal-renderer.ts';

/** fal endpoint ids: `owner/alias` and an optional path (`fal-ai/flux-pro/kontext/max/multi`). */
const modelId = v.pipe(
  v.string(),
  v.regex(/^[\w.-]+(\/[\w.-]+)+$/, 'must be a fal endpoint id such as fal-ai/flux-pro/kontext'),
);
const field = v.pipe(v.string(), v.minLength(1));

/** A model whose inputs the adapter does not know, named with the fields that take each input. */
const mapping = v.strictObject({
  id: modelId,
  photo: v.optional(field),
  product: v.optional(field),
  images: v.optional(field),
  prompt: v.optional(field),
  extra: v.optional(v.record(v.string(), v.unknown())),
  keepsPhotoPixels: v.optional(v.boolean()),
});
const choice = v.union([modelId, mapping]);

export default definePlugin({
  name: 'renderer-fal',
  provides: ['renderer'],
  configSchema: v.object({
    /** Falls back to the FAL_KEY environment variable, so the key need not sit in a config file. */
    apiKey: v.optional(v.pipe(v.string(), v.minLength(1))),
    baseUrl: v.optional(
      v.pipe(v.string(), v.url('must be an absolute URL'), v.regex(/^https?:\/\//, 'must be http or https')),
      'https://queue.fal.run',
    ),
    /** The whole render, polling and download included. */
    timeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 120_000),
    pollIntervalMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(10)), 500),
    /** A mode left out is not rendered by this engine (the router sends it to the next one). */
    models: v.optional(
      v.pipe(
        v.strictObject({ 'virtual-try-on': v.optional(choice), 'room-visualizer': v.optional(choice) }),
        v.check((models) => Object.values(models).some(Boolean), 'must name a model for at least one mode'),
      ),
      defaultModels,
    ),
    sizes: v.optional(v.pipe(v.array(v.picklist(['1K', '2K', '4K'])), v.minLength(1))),
  }),
  register({ options, outbound }) {
    const apiKey = options.apiKey ?? process.env.FAL_KEY;
    if (!apiKey)
      throw new Error('the fal renderer needs an API key: set FAL_KEY or pluginOptions.renderer-fal.apiKey.');
    return { renderer: createFalRenderer({ ...options, apiKey, outbound }) };
  },
});
