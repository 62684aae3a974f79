import { useEffect, useState } from 'preact/hooks';

/** Where the reader is: `#/generations/agen_1?status=failed` → path `/generations/agen_1`, its query. */
export interface Route {
  path: string;
  query: URLSearchParams;
}

export function currentRoute(): Route {
  const hash = location.hash.replace(/^#/, '') || '/';
  const [path, search] = hash.split('?', 2) as [string, string | undefined];
  return { path: path.startsWith('/') ? path : `/${path}`, query: new URLSearchParams(search ?? '') };
}

/** The route, updated on every hash change (links, back and forward). */
export function useRoute(): Route {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const update = () => setRoute(currentRoute());
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

/** Goes to `path` (e.g. `/overview`); `replace` keeps a token-bearing link out of the history. */
export function navigate(path: string, options: { replace?: boolean } = {}) {
  if (options.replace) {
    history.replaceState(null, '', `#${path}`);
    dispatchEvent(new HashChangeEvent('hashchange'));
  } else {
    location.hash = path;
  }
}

export const href = (path: string) => `#${path}`;
