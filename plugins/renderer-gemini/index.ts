import * as v from 'valibot';
import { definePlugin } from '../../kit/plugin.ts';
import { createGeminiRenderer } from './gemini-renderer.ts';

export { createGeminiRenderer } from './gemini-renderer.ts';

export default definePlugin({
  name: 'renderer-gemini',
  provides: ['renderer'],
  configSchema: v.object({
    /** Falls back to the GEMINI_API_KEY environment variable, so the key need not sit in a config file. */
    apiKey: v.optional(v.pipe(v.string(), v.minLength(1))),
    baseUrl: v.optional(
      v.pipe(v.string(), v.url('must be an absolute URL'), v.regex(/^https?:\/\//, 'must be http or https')),
      'https://generativelanguage.googleapis.com',
    ),
    model: v.optional(v.pipe(v.string(), v.minLength(1)), 'gemini-3-pro-image-preview'),
    timeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 120_000),
  }),
  register({ options }) {
    const apiKey = options.apiKey ?? process.env.GEMINI_API_KEY;
    if (!apiKey) {
      throw new Error(
        'the Gemini renderer needs an API key: set GEMINI_API_KEY or pluginOptions.renderer-gemini.apiKey.',
      );
    }
    return { renderer: createGeminiRenderer({ ...options, apiKey }) };
  },
});
