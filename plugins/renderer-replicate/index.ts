import * as v from 'valibot';
import { definePlugin } from '../../kit/plugin.ts';
import { createReplicateRenderer } from './replicate-renderer.ts';

export { createReplicateRenderer } from './replicate-renderer.ts';

const field = v.pipe(v.string(), v.minLength(1));
const modelRef = v.pipe(v.string(), v.regex(/^[^/]+\/[^/:]+(:.+)?$/, 'must be owner/name or owner/name:version'));
const inputMapping = v.object({
  photo: field,
  products: v.optional(v.union([field, v.pipe(v.array(field), v.minLength(1))])),
  prompt: v.optional(field),
  productTitles: v.optional(field),
  fixed: v.optional(v.record(v.string(), v.unknown())),
  makes: v.optional(v.picklist(['created', 'edited'])),
});
const perMode = <T extends v.GenericSchema>(schema: T) =>
  v.object({ 'virtual-try-on': v.optional(schema), 'room-visualizer': v.optional(schema) });

export default definePlugin({
  name: 'renderer-replicate',
  provides: ['renderer'],
  configSchema: v.object({
    /** Falls back to the REPLICATE_API_TOKEN environment variable (the SDK's), so the token need not sit in a config file. */
    apiKey: v.optional(field),
    baseUrl: v.optional(
      v.pipe(v.string(), v.url('must be an absolute URL'), v.regex(/^https?:\/\//, 'must be http or https')),
      'https://api.replicate.com',
    ),
    /** The whole render: creating the prediction, polling it and downloading its image. */
    timeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 120_000),
    pollIntervalMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(50)), 1_000),
    /** The model per mode; a mode without one is not rendered here. */
    models: v.optional(perMode(modelRef), {
      'room-visualizer': 'black-forest-labs/flux-kontext-pro',
      'virtual-try-on': 'google/nano-banana',
    }),
    /** Which input field gets what, for a model without a default (see models.ts). */
    inputs: v.optional(perMode(inputMapping)),
    /** The sizes it takes; unset: all. */
    sizes: v.optional(v.pipe(v.array(v.picklist(['1K', '2K', '4K'])), v.minLength(1))),
  }),
  register({ options, outbound }) {
    const apiKey = options.apiKey ?? process.env.REPLICATE_API_TOKEN;
    if (!apiKey) {
      throw new Error(
        'the Replicate renderer needs an API token: set REPLICATE_API_TOKEN or pluginOptions.renderer-replicate.apiKey.',
      );
    }
    return { renderer: createReplicateRenderer({ ...options, apiKey, outbound }) };
  },
});
