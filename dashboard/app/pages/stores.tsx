import { useState } from 'preact/hooks';
import { embedSnippet } from '../../../sdk/snippet.ts';
import { api, baseUrl, unwrap, type Schemas } from '../api.ts';
import { useNotify } from '../components/notices.tsx';
import {
  CopyButton,
  ErrorText,
  LoadMore,
  PageTitle,
  ScrollTable,
  ShortId,
  Time,
  useAction,
} from '../components/ui.tsx';
import { usePaged } from '../hooks.ts';
import { useIsAdmin, useSession } from '../session.ts';

type Widget = Schemas['Widget'];

export function StoresPage() {
  const session = useSession();
  const stores = usePaged<Schemas['Store']>(
    (startingAfter) =>
      unwrap(api.GET('/v1/stores', { params: { query: { limit: 20, starting_after: startingAfter } } })),
    'stores',
  );
  const widgets = usePaged<Widget>(
    (startingAfter) =>
      unwrap(api.GET('/v1/widgets', { params: { query: { limit: 20, starting_after: startingAfter } } })),
    'widgets',
  );
  return (
    <>
      <PageTitle>Stores & widgets</PageTitle>
      <section aria-labelledby="ids-heading">
        <h2 id="ids-heading">Your organization</h2>
        <dl class="facts">
          <dt>Organization id</dt>
          <dd>
            <ShortId id={session.organization.id} />
          </dd>
          <dt>Name</dt>
          <dd>{session.organization.name}</dd>
        </dl>
      </section>
      <section aria-labelledby="stores-heading">
        <h2 id="stores-heading">Stores</h2>
        <ErrorText error={stores.error} />
        <ScrollTable label="Stores table">
          <table>
            <thead>
              <tr>
                <th scope="col">Store</th>
                <th scope="col">Store id</th>
                <th scope="col">Attribution window</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {stores.items.map((store) => (
                <tr key={store.id}>
                  <th scope="row">{store.name}</th>
                  <td>
                    <ShortId id={store.id} />
                  </td>
                  <td>{store.attributionWindowDays} days</td>
                  <td>
                    <Time iso={store.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
        <LoadMore hasMore={stores.hasMore} loading={stores.loading} onClick={stores.loadMore} />
      </section>
      <section aria-labelledby="widgets-heading">
        <h2 id="widgets-heading">Widgets</h2>
        <ErrorText error={widgets.error} />
        {!widgets.loading && widgets.items.length === 0 && <p class="muted">No widgets yet.</p>}
        <ul class="rows">
          {widgets.items.map((widget) => (
            <li key={widget.id} class="row">
              <WidgetRow widget={widget} onSaved={(saved) => widgets.replace((item) => item.id === saved.id, saved)} />
            </li>
          ))}
        </ul>
        <LoadMore hasMore={widgets.hasMore} loading={widgets.loading} onClick={widgets.loadMore} />
      </section>
    </>
  );
}

function WidgetRow({ widget, onSaved }: { widget: Widget; onSaved: (widget: Widget) => void }) {
  const admin = useIsAdmin();
  const [editing, setEditing] = useState(false);
  const snippet = embedSnippet({ base: baseUrl, storeId: widget.storeId, widgetId: widget.id });
  return (
    <>
      <h3 class="row-title">
        <code>{widget.id}</code> <span class="muted">{widget.mode}</span>
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
            <dd>{widget.mode}</dd>
            <dt>Image size</dt>
            <dd>{widget.imageSize}</dd>
            <dt>Daily caps</dt>
            <dd>
              {widget.dailyGenerationCap} generations,{' '}
              {widget.dailyCreditCap === null ? 'no credit cap' : `${widget.dailyCreditCap} credits`}
            </dd>
            <dt>Used today (UTC)</dt>
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
      <details>
        <summary>Embed snippet</summary>
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
  // Full once the next generation would pass a cap (as the form's sizes say, 1K costs 1 credit, 2K 2, 4K 3).
  const cost = { '1K': 1, '2K': 2, '4K': 3 }[widget.imageSize];
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

function WidgetForm({
  widget,
  onCancel,
  onSaved,
}: {
  widget: Widget;
  onCancel: () => void;
  onSaved: (widget: Widget) => void;
}) {
  const notify = useNotify();
  const [origins, setOrigins] = useState(widget.allowedOrigins.join('\n'));
  const [cap, setCap] = useState(String(widget.dailyGenerationCap));
  const [creditCap, setCreditCap] = useState(widget.dailyCreditCap === null ? '' : String(widget.dailyCreditCap));
  const [mode, setMode] = useState(widget.mode);
  const [size, setSize] = useState(widget.imageSize);
  const action = useAction();
  return (
    <form
      class="stacked-form"
      aria-label={`Edit ${widget.id}`}
      onSubmit={(event) => {
        event.preventDefault();
        void action.run(async () => {
          const body = {
            allowedOrigins: origins
              .split(/\s+/)
              .map((origin) => origin.trim())
              .filter(Boolean),
            dailyGenerationCap: Number(cap),
            // Empty: no cap.
            dailyCreditCap: creditCap.trim() === '' ? null : Number(creditCap),
            mode,
            imageSize: size,
          };
          onSaved(await unwrap(api.PATCH('/v1/widgets/{id}', { params: { path: { id: widget.id } }, body })));
          notify('Widget saved.');
        });
      }}
    >
      <label>
        Allowed origins <span class="muted">(one per line, e.g. https://shop.example)</span>
        <textarea rows={3} required value={origins} onInput={(event) => setOrigins(event.currentTarget.value)} />
      </label>
      <label>
        Daily generation cap
        <input
          type="number"
          min={1}
          step={1}
          required
          value={cap}
          onInput={(event) => setCap(event.currentTarget.value)}
        />
      </label>
      <label>
        Daily credit cap <span class="muted">(credits a UTC day; refunded ones do not count; empty for no cap)</span>
        <input
          type="number"
          min={1}
          step={1}
          value={creditCap}
          onInput={(event) => setCreditCap(event.currentTarget.value)}
        />
      </label>
      <label>
        Mode
        <select value={mode} onChange={(event) => setMode(event.currentTarget.value as Widget['mode'])}>
          <option value="virtual-try-on">virtual-try-on</option>
          <option value="room-visualizer">room-visualizer</option>
        </select>
      </label>
      <label>
        Image size
        <select value={size} onChange={(event) => setSize(event.currentTarget.value as Widget['imageSize'])}>
          <option value="1K">1K (1 credit)</option>
          <option value="2K">2K (2 credits)</option>
          <option value="4K">4K (3 credits)</option>
        </select>
      </label>
      <ErrorText error={action.error} />
      <div class="buttons">
        <button type="submit" disabled={action.busy}>
          Save widget
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
