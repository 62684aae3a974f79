import * as v from 'valibot';
import { definePlugin } from '../../kit/plugin.ts';
import {
  createFashnRenderer,
  DEFAULT_BASE_URL,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_TIMEOUT_MS,
  FASHN_MODELS,
} from './fashn-renderer.ts';

export { createFashnRenderer } from './fashn-renderer.ts';

export default definePlugin({
  name: 'renderer-fashn',
  provides: ['renderer'],
  configSchema: v.object({
    /** Falls back to the FASHN_API_KEY environment variable (as FASHN's SDK does), so the key need not sit in a config file. */
    apiKey: v.optional(v.pipe(v.string(), v.minLength(1))),
    baseUrl: v.optional(
      v.pipe(v.string(), v.url('must be an absolute URL'), v.regex(/^https?:\/\//, 'must be http or https')),
      DEFAULT_BASE_URL,
    ),
    /** FASHN renders virtual try-on only: this is that mode's model. `tryon-max` takes 1K, 2K and 4K; `tryon-v1.6` draws 864×1296, so 1K only. */
    model: v.optional(v.picklist(FASHN_MODELS), 'tryon-max'),
    /** The whole render, every garment's run and poll and the download; tryon-max takes 20–120 s a garment. */
    timeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), DEFAULT_TIMEOUT_MS),
    pollIntervalMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), DEFAULT_POLL_INTERVAL_MS),
    outputFormat: v.optional(v.picklist(['png', 'jpeg']), 'png'),
  }),
  register({ options, outbound }) {
    const apiKey = options.apiKey ?? process.env.FASHN_API_KEY;
    if (!apiKey)
      throw new Error('the FASHN renderer needs an API key: set FASHN_API_KEY or pluginOptions.renderer-fashn.apiKey.');
    return { renderer: createFashnRenderer({ ...options, apiKey, outbound }) };
  },
});
