import { useState } from 'preact/hooks';
import { api, unwrap, type Schemas } from '../api.ts';
import { useNotify } from './notices.tsx';
import { ErrorText, useAction } from './ui.tsx';
import { creditsFor, imageSizes } from '../labels.ts';

type Widget = Schemas['Widget'];

/** A new widget's fields before the admin changes them: the API's defaults. */
const defaults = {
  mode: 'virtual-try-on',
  imageSize: '1K',
  allowedOrigins: [],
  dailyGenerationCap: 500,
  dailyCreditCap: null,
} satisfies Partial<Widget>;

/**
 * Creates a widget (given `stores` to choose from) or edits `widget`. The server checks every
 * field, origins included; its error message shows under the form.
 */
export function WidgetForm({
  widget,
  stores = [],
  onCancel,
  onSaved,
}: {
  widget?: Widget;
  stores?: Schemas['Store'][];
  onCancel: () => void;
  onSaved: (widget: Widget) => void;
}) {
  const start = widget ?? defaults;
  const notify = useNotify();
  const [storeId, setStoreId] = useState(stores[0]?.id ?? '');
  const [origins, setOrigins] = useState(start.allowedOrigins.join('\n'));
  const [cap, setCap] = useState(String(start.dailyGenerationCap));
  const [creditCap, setCreditCap] = useState(start.dailyCreditCap === null ? '' : String(start.dailyCreditCap));
  const [mode, setMode] = useState<Widget['mode']>(start.mode);
  const [size, setSize] = useState<Widget['imageSize']>(start.imageSize);
  const action = useAction();
  return (
    <form
      class="stacked-form"
      aria-label={widget ? `Edit ${widget.id}` : 'Create a widget'}
      onSubmit={(event) => {
        event.preventDefault();
        void action.run(async () => {
          const fields = {
            allowedOrigins: origins.split(/[\s,]+/).filter(Boolean),
            dailyGenerationCap: Number(cap),
            // Empty: no cap.
            dailyCreditCap: creditCap.trim() === '' ? null : Number(creditCap),
            mode,
            imageSize: size,
          };
          const saved = widget
            ? await unwrap(api.PATCH('/v1/widgets/{id}', { params: { path: { id: widget.id } }, body: fields }))
            : await unwrap(api.POST('/v1/widgets', { body: { storeId, ...fields } }));
          onSaved(saved);
          notify(widget ? 'Widget saved.' : `Widget ${saved.id} created: paste its code snippet into your pages.`);
        });
      }}
    >
      {!widget && (
        <label>
          Store <span class="muted">(its orders are attributed to the widget's visualizations)</span>
          <select required value={storeId} onChange={(event) => setStoreId(event.currentTarget.value)}>
            {stores.map((store) => (
              <option key={store.id} value={store.id}>
                {store.name} ({store.id})
              </option>
            ))}
          </select>
        </label>
      )}
      <label>
        Mode
        <select value={mode} onChange={(event) => setMode(event.currentTarget.value as Widget['mode'])}>
          <option value="virtual-try-on">virtual-try-on (products worn in the shopper's photo)</option>
          <option value="room-visualizer">room-visualizer (products in a photo of the shopper's room)</option>
        </select>
      </label>
      <label>
        Image size
        <select value={size} onChange={(event) => setSize(event.currentTarget.value as Widget['imageSize'])}>
          {imageSizes.map((imageSize) => (
            <option key={imageSize} value={imageSize}>
              {imageSize} ({creditsFor(imageSize)} credit{creditsFor(imageSize) === 1 ? '' : 's'} a generation)
            </option>
          ))}
        </select>
      </label>
      <label>
        Allowed origins{' '}
        <span class="muted">(the shop sites whose pages may open it, one per line, e.g. https://shop.example)</span>
        <textarea rows={3} required value={origins} onInput={(event) => setOrigins(event.currentTarget.value)} />
      </label>
      <label>
        Daily generation cap <span class="muted">(generations a UTC day, failed ones included)</span>
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
      <ErrorText error={action.error} />
      <div class="buttons">
        <button type="submit" disabled={action.busy}>
          {widget ? 'Save widget' : 'Create widget'}
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
