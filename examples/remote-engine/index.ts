import { definePlugin } from 'visualizer/plugin';
import { createRemoteEngine } from './remote-engine.ts';

export { createRemoteEngine, type RemoteEngineOptions } from './remote-engine.ts';

export interface RemoteEnginePluginOptions {
  /** The API's base URL (http or https). */
  baseUrl?: string;
  /** Falls back to REMOTE_ENGINE_API_KEY, so the key need not sit in a config file. */
  apiKey?: string;
  /** Milliseconds one render may take; 60 000 by default. */
  timeoutMs?: number;
}

/**
 * The `remote-engine` renderer, loaded by module path:
 *   VISUALIZER_RENDERER=./node_modules/visualizer-remote-engine/index.ts
 * with its options in the config file: { "pluginOptions": { "remote-engine": { "baseUrl": "https://render.example.com" } } }
 */
export default definePlugin<RemoteEnginePluginOptions, 'renderer'>({
  name: 'remote-engine',
  provides: ['renderer'],
  // Without a configSchema the kernel passes `pluginOptions['remote-engine']` as written, so it is checked here.
  register({ options, logger }) {
    const { baseUrl, apiKey = process.env.REMOTE_ENGINE_API_KEY, timeoutMs, ...unknown } = options;
    if (Object.keys(unknown).length)
      throw new Error(`pluginOptions.remote-engine has unknown settings: ${Object.keys(unknown).join(', ')}`);
    if (typeof baseUrl !== 'string' || !/^https?:\/\/[^/]/.test(baseUrl))
      throw new Error('pluginOptions.remote-engine.baseUrl must be an http or https URL');
    if (!apiKey)
      throw new Error(
        'the remote engine needs an API key: set REMOTE_ENGINE_API_KEY or pluginOptions.remote-engine.apiKey',
      );
    if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0))
      throw new Error('pluginOptions.remote-engine.timeoutMs must be a positive integer');
    logger.info('remote engine: renders go to a remote API', { baseUrl });
    return { renderer: createRemoteEngine({ baseUrl, apiKey, timeoutMs }) };
  },
});
