import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { messageOf, type Page } from './api.ts';

export interface Paged<T> {
  items: T[];
  hasMore: boolean;
  loading: boolean;
  error: string | null;
  loadMore(): void;
  reload(): void;
  /** Replaces one item (after an edit) without reloading the list. */
  replace(match: (item: T) => boolean, next: T | null): void;
}

/**
 * A list read page by page through the API (`starting_after` = the last id shown), so a long list
 * costs one page at a time. `key` changes (new filters) start again from the first page.
 */
export function usePaged<T extends { id: string }>(
  fetchPage: (startingAfter: string | undefined) => Promise<Page<T>>,
  key: string,
): Paged<T> {
  const [items, setItems] = useState<T[]>([]);
  const [hasMore, setHasMore] = useState(false);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const generation = useRef(0);
  const fetcher = useRef(fetchPage);
  fetcher.current = fetchPage;

  const load = useCallback((startingAfter: string | undefined, append: boolean) => {
    const mine = ++generation.current;
    setLoading(true);
    setError(null);
    fetcher.current(startingAfter).then(
      (page) => {
        if (mine !== generation.current) return;
        setItems((previous) => (append ? [...previous, ...page.data] : page.data));
        setHasMore(page.has_more);
        setLoading(false);
      },
      (failure) => {
        if (mine !== generation.current) return;
        setError(messageOf(failure));
        setLoading(false);
      },
    );
  }, []);

  useEffect(() => load(undefined, false), [key, load]);

  return {
    items,
    hasMore,
    loading,
    error,
    loadMore: () => load(items.at(-1)?.id, true),
    reload: () => load(undefined, false),
    replace: (match, next) =>
      setItems((previous) =>
        next ? previous.map((item) => (match(item) ? next : item)) : previous.filter((item) => !match(item)),
      ),
  };
}

/** One value read from the API, with its loading and error state. */
export function useLoad<T>(fetchValue: () => Promise<T>, key: string) {
  const [state, setState] = useState<{ value: T | null; error: string | null; loading: boolean }>({
    value: null,
    error: null,
    loading: true,
  });
  const generation = useRef(0);
  const fetcher = useRef(fetchValue);
  fetcher.current = fetchValue;
  const reload = useCallback(() => {
    const mine = ++generation.current;
    setState((previous) => ({ ...previous, loading: true, error: null }));
    fetcher.current().then(
      (value) => mine === generation.current && setState({ value, error: null, loading: false }),
      (failure) => mine === generation.current && setState({ value: null, error: messageOf(failure), loading: false }),
    );
  }, []);
  useEffect(reload, [key, reload]);
  return { ...state, reload, set: (value: T) => setState({ value, error: null, loading: false }) };
}
