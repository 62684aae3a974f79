import { api, unwrap, type Generation } from '../api.ts';
import { ErrorText, GeneratedImage, LoadMore, PageTitle, StatusBadge, Time } from '../components/ui.tsx';
import { dayAfter, dayStart } from '../format.ts';
import { usePaged } from '../hooks.ts';
import { modeLabel, productNames } from '../labels.ts';
import { href, navigate } from '../router.ts';

const statuses = ['processing', 'complete', 'failed'] as const;
const modes = ['virtual-try-on', 'room-visualizer'] as const;

/** Filters live in the route's query, so a filtered gallery can be bookmarked and the back button works. */
function setFilter(query: URLSearchParams, name: string, value: string) {
  const next = new URLSearchParams(query);
  if (value) next.set(name, value);
  else next.delete(name);
  const search = next.toString();
  navigate(`/generations${search ? `?${search}` : ''}`, { replace: true });
}

function FilterSelect({
  label,
  name,
  value,
  options,
  query,
}: {
  label: string;
  name: string;
  value: string;
  options: readonly string[];
  query: URLSearchParams;
}) {
  return (
    <label>
      {label}
      <select value={value} onChange={(event) => setFilter(query, name, event.currentTarget.value)}>
        <option value="">Any</option>
        {options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    </label>
  );
}

export function GenerationsPage({ query }: { query: URLSearchParams }) {
  const status = query.get('status') ?? '';
  const mode = query.get('mode') ?? '';
  const from = query.get('from') ?? '';
  const to = query.get('to') ?? '';
  const list = usePaged<Generation>((startingAfter) => {
    const params = {
      limit: 24,
      starting_after: startingAfter,
      // The route's query is the URL's, so a hand-edited value reaches the server and its 400 is shown.
      status: (status || undefined) as Generation['status'] | undefined,
      mode: (mode || undefined) as Generation['mode'] | undefined,
      from: from ? dayStart(from) : undefined,
      to: to ? dayAfter(to) : undefined,
    };
    return unwrap(api.GET('/v1/generations', { params: { query: params } }));
  }, query.toString());

  return (
    <>
      <PageTitle>Generations</PageTitle>
      <form class="filters" aria-label="Filter generations" onSubmit={(event) => event.preventDefault()}>
        <FilterSelect label="Status" name="status" value={status} options={statuses} query={query} />
        <FilterSelect label="Mode" name="mode" value={mode} options={modes} query={query} />
        <label>
          From
          <input type="date" value={from} onChange={(event) => setFilter(query, 'from', event.currentTarget.value)} />
        </label>
        <label>
          To (inclusive)
          <input type="date" value={to} onChange={(event) => setFilter(query, 'to', event.currentTarget.value)} />
        </label>
      </form>
      <ErrorText error={list.error} />
      {!list.loading && !list.error && list.items.length === 0 && (
        <p class="muted">
          {query.toString()
            ? 'No generations match these filters: set a filter back to “Any” or widen the days.'
            : 'No generations match: none yet. They appear here once a widget or a server makes one (see the '}
          {!query.toString() && (
            <>
              <a href={href('/stores')}>Stores &amp; widgets</a> page for the embed snippet, or{' '}
              <code>POST /v1/generations</code> in the <a href="../docs">API reference</a>).
            </>
          )}
        </p>
      )}
      <ul class="gallery">
        {list.items.map((generation) => (
          <li key={generation.id}>
            <a href={href(`/generations/${encodeURIComponent(generation.id)}`)} class="card">
              {generation.imageVariants ? (
                <GeneratedImage
                  src={generation.imageVariants.list.url}
                  width={generation.imageVariants.list.width}
                  alt={`Result of ${generation.id}: ${productNames(generation)}`}
                />
              ) : (
                <span class="placeholder" aria-hidden="true">
                  {generation.status === 'failed' ? '✕' : '…'}
                </span>
              )}
              <span class="card-text">
                <strong class="card-title">{productNames(generation)}</strong>
                <span>
                  {modeLabel(generation.mode)} · <Time iso={generation.createdAt} />
                </span>
                <StatusBadge status={generation.status} />
                <code class="card-id" title={generation.id}>
                  {generation.id}
                </code>
              </span>
            </a>
          </li>
        ))}
      </ul>
      <LoadMore hasMore={list.hasMore} loading={list.loading} onClick={list.loadMore} />
    </>
  );
}
