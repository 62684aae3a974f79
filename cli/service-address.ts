import { UsageError } from './command.ts';

/** Where `npm start` in the same environment listens: `PORT`, else the config's default port. */
export const defaultBaseUrl = (env: NodeJS.ProcessEnv) =>
  `http://localhost:${/^\d+$/.test(env.PORT ?? '') && env.PORT !== '0' ? env.PORT : 3000}`;

/** An http(s) URL given on the command line; anything else is a usage error naming the option. */
export function httpUrl(text: string, option: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${option} must be an http:// or https:// URL, not '${text}'.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`${option} must be an http:// or https:// URL, not '${text}'.`);
  return url;
}
