import { useState } from 'preact/hooks';
import { embedSnippet } from '../../../sdk/snippet.ts';
import { api, baseUrl, unwrap, type Schemas } from '../api.ts';
import { usePaged } from '../hooks.ts';
import { creditsFor, modeLabel } from '../labels.ts';
import { useIsAdmin } from '../session.ts';
import { DocsLink } from './docs-link.tsx';
import { CopyButton, ErrorText, LoadMore, ShortId } from './ui.tsx';
import { WidgetForm } from './widget-form.tsx';

type Widget = Schemas['Widget'];

/** The organization's widgets with their caps and embed snippets; admins create and edit them here. */
export function Widgets({ stores }: { stores: Schemas['Store'][] }) {
  const admin = useIsAdmin();
  const [creating, setCreating] = useState(false);
  // The widget just created opens with its snippet: pasting it is the next step.
  const [createdId, setCreatedId] = useState<string | null>(null);
  const widgets = usePaged<Widget>(
    (startingAfter) =>
      unwrap(api.GET('/v1/widgets', { params: { query: { limit: 20, starting_after: startingAfter } } })),
    'widgets',
  );
  const empty = !widgets.loading && !widgets.error && widgets.items.length === 0;
  return (
    <section aria-labelledby="widgets-heading">
      <h2 id="widgets-heading">Widgets</h2>
      <p class="muted">
        A widget lets shoppers on your shop's pages see your products on their own photo, without a key: it belongs to a
        store, opens only on the origins you allow, and stops for the rest of the UTC day at its daily caps. Paste its
        code snippet into your product pages, then open it with the SDK's <code>Visualizer.open()</code> (
        <DocsLink section="Browser SDK">the browser SDK in the API reference</DocsLink>).
      </p>
      <ErrorText error={widgets.error} />
      {empty && (
        <p class="empty-state">
          No widgets yet.{' '}
          {admin
            ? 'Create one for a store below, then paste its code snippet into your product pages.'
            : 'Ask an admin of your organization to create one.'}
        </p>
      )}
      {admin &&
        (creating ? (
          <WidgetForm
            stores={stores}
            onCancel={() => setCreating(false)}
            onSaved={(created) => {
              setCreating(false);
              setCreatedId(created.id);
              widgets.reload();
            }}
          />
        ) : (
          <button type="button" onClick={() => setCreating(true)} disabled={stores.length === 0}>
            Create a widget
          </button>
        ))}
      <ul class="rows widget-list">
        {widgets.items.map((widget) => (
          <li key={widget.id} class="row">
            <WidgetRow
              widget={widget}
              fresh={widget.id === createdId}
              onSaved={(saved) => widgets.replace((item) => item.id === saved.id, saved)}
            />
          </li>
        ))}
      </ul>
      <LoadMore hasMore={widgets.hasMore} loading={widgets.loading} onClick={widgets.loadMore} />
    </section>
  );
}

function WidgetRow({ widget, fresh, onSaved }: { widget: Widget; fresh: boolean; onSaved: (widget: Widget) => void }) {
  const admin = useIsAdmin();
  const [editing, setEditing] = useState(false);
  const snippet = embedSnippet({ base: baseUrl, storeId: widget.storeId, widgetId: widget.id });
  return (
    <>
      <h3 class="row-title">
        <code>{widget.id}</code> <span class="muted">{modeLabel(widget.mode)}</span>
      </h3>
      {editing ? (
        <WidgetForm
          widget={widget}
          onCancel={() => setEditing(false)}
          onSaved={(saved) => {
            onSaved(saved);
            setEditing(false);
          }}
        />
      ) : (
        <>
          <dl class="facts">
            <dt>Store</dt>
            <dd>
              <ShortId id={widget.storeId} />
            </dd>
            <dt>Mode</dt>
            <dd>{modeLabel(widget.mode)}</dd>
            <dt>Image size</dt>
            <dd>{widget.imageSize}</dd>
            <dt>Daily caps (per UTC day)</dt>
            <dd>
              {widget.dailyGenerationCap} generations,{' '}
              {widget.dailyCreditCap === null ? 'no credit cap' : `${widget.dailyCreditCap} credits`}
            </dd>
            <dt>Used today (since midnight UTC)</dt>
            <dd>
              <UsageToday widget={widget} />
            </dd>
            <dt>Allowed origins</dt>
            <dd>{widget.allowedOrigins.join(', ')}</dd>
          </dl>
          {admin && (
            <button type="button" class="secondary small" onClick={() => setEditing(true)}>
              Edit widget
            </button>
          )}
        </>
      )}
      <details open={fresh}>
        <summary>Embed snippet</summary>
        <p class="muted">
          Paste it into the pages of the allowed origins: product pages, and the order confirmation page to report
          orders.
        </p>
        <pre class="snippet" tabIndex={0} aria-label={`Embed snippet of ${widget.id}`}>
          {snippet}
        </pre>
        <CopyButton text={snippet} label="Copy snippet" />
      </details>
    </>
  );
}

/** Today's use against each cap; past a cap, shoppers are told visualizations are unavailable until midnight UTC. */
function UsageToday({ widget }: { widget: Widget }) {
  const { generations, credits } = widget.usageToday;
  // Full once the next generation would pass a cap.
  const cost = creditsFor(widget.imageSize);
  const full =
    generations >= widget.dailyGenerationCap ||
    (widget.dailyCreditCap !== null && credits + cost > widget.dailyCreditCap);
  const spent =
    widget.dailyCreditCap === null
      ? `${credits} credit${credits === 1 ? '' : 's'}`
      : `${credits} of ${widget.dailyCreditCap} credits`;
  return (
    <>
      {generations} of {widget.dailyGenerationCap} generations, {spent}
      {full && <strong> (cap reached until midnight UTC)</strong>}
    </>
  );
}
