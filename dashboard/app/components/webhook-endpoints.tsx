import { useState } from 'preact/hooks';
import { api, unwrap, type Schemas } from '../api.ts';
import { dateTime } from '../format.ts';
import { usePaged } from '../hooks.ts';
import { useIsAdmin } from '../session.ts';
import { useNotify } from './notices.tsx';
import { ConfirmButton, ErrorText, LoadMore, ShortId, ShownOnce, StatusBadge, useAction } from './ui.tsx';

type Endpoint = Schemas['WebhookEndpoint'];
type EventName = Endpoint['enabledEvents'][number];
const eventNames = ['generation.completed', 'generation.failed'] as const;

interface Draft {
  url: string;
  description: string;
  events: EventName[];
}

/** The endpoint form, for creating and for editing: URL, description, the events it receives. */
function EndpointForm({
  initial,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  initial: Draft;
  submitLabel: string;
  onSubmit: (draft: Draft) => Promise<void>;
  onCancel?: () => void;
}) {
  const [draft, setDraft] = useState(initial);
  const action = useAction();
  const all = draft.events.includes('*');
  const toggle = (name: EventName, on: boolean) =>
    setDraft({
      ...draft,
      events: on
        ? [...draft.events.filter((event) => event !== name), name]
        : draft.events.filter((event) => event !== name),
    });
  return (
    <form
      class="stacked-form"
      onSubmit={(event) => {
        event.preventDefault();
        void action.run(() => onSubmit(draft));
      }}
    >
      <label>
        URL
        <input
          type="url"
          required
          placeholder="https://shop.example/webhooks/visualizer"
          value={draft.url}
          onInput={(event) => setDraft({ ...draft, url: event.currentTarget.value })}
        />
      </label>
      <label>
        Description <span class="muted">(optional)</span>
        <input
          type="text"
          maxLength={500}
          value={draft.description}
          onInput={(event) => setDraft({ ...draft, description: event.currentTarget.value })}
        />
      </label>
      <fieldset>
        <legend>Events</legend>
        <label class="check">
          <input type="checkbox" checked={all} onChange={(event) => toggle('*', event.currentTarget.checked)} /> Every
          event (<code>*</code>)
        </label>
        {eventNames.map((name) => (
          <label class="check" key={name}>
            <input
              type="checkbox"
              disabled={all}
              checked={all || draft.events.includes(name)}
              onChange={(event) => toggle(name, event.currentTarget.checked)}
            />{' '}
            <code>{name}</code>
          </label>
        ))}
      </fieldset>
      <ErrorText error={action.error} />
      <div class="buttons">
        <button type="submit" disabled={action.busy}>
          {submitLabel}
        </button>
        {onCancel && (
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

/** Webhook endpoints: create (secret shown once), edit, enable/disable, rotate the secret, delete. */
export function WebhookEndpoints() {
  const admin = useIsAdmin();
  const notify = useNotify();
  const endpoints = usePaged<Endpoint>(
    (startingAfter) =>
      unwrap(api.GET('/v1/webhook-endpoints', { params: { query: { limit: 20, starting_after: startingAfter } } })),
    'endpoints',
  );
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  const [secret, setSecret] = useState<{ label: string; value: string } | null>(null);
  const row = useAction();

  const patch = (id: string, body: Schemas['UpdateWebhookEndpointRequest']) =>
    unwrap(api.PATCH('/v1/webhook-endpoints/{id}', { params: { path: { id } }, body })).then((updated) =>
      endpoints.replace((item) => item.id === id, updated),
    );

  return (
    <section aria-labelledby="endpoints-heading">
      <h2 id="endpoints-heading">Webhook endpoints</h2>
      {admin && !creating && (
        <button type="button" onClick={() => setCreating(true)}>
          Add an endpoint
        </button>
      )}
      {creating && (
        <EndpointForm
          initial={{ url: '', description: '', events: ['*'] }}
          submitLabel="Create endpoint"
          onCancel={() => setCreating(false)}
          onSubmit={async (draft) => {
            const made = await unwrap(
              api.POST('/v1/webhook-endpoints', {
                body: { url: draft.url, description: draft.description || null, enabledEvents: draft.events },
              }),
            );
            setSecret({ label: `Signing secret of ${made.url}`, value: made.secret });
            setCreating(false);
            endpoints.reload();
          }}
        />
      )}
      {secret && <ShownOnce label={secret.label} value={secret.value} onDone={() => setSecret(null)} />}
      <ErrorText error={endpoints.error ?? row.error} />
      <ul class="rows">
        {endpoints.items.map((endpoint) => (
          <li key={endpoint.id} class="row">
            {editing === endpoint.id ? (
              <EndpointForm
                initial={{ url: endpoint.url, description: endpoint.description ?? '', events: endpoint.enabledEvents }}
                submitLabel="Save"
                onCancel={() => setEditing(null)}
                onSubmit={async (draft) => {
                  await patch(endpoint.id, {
                    url: draft.url,
                    description: draft.description || null,
                    enabledEvents: draft.events,
                  });
                  setEditing(null);
                  notify('Endpoint saved.');
                }}
              />
            ) : (
              <>
                <h3 class="row-title">
                  <span class="url">{endpoint.url}</span> <StatusBadge status={endpoint.status} />
                </h3>
                <p class="muted">
                  <ShortId id={endpoint.id} /> · events: {endpoint.enabledEvents.join(', ')} · updated{' '}
                  {dateTime(endpoint.updatedAt)}
                  {endpoint.description ? ` · ${endpoint.description}` : ''}
                  {endpoint.disabledReason ? ` · disabled: ${endpoint.disabledReason}` : ''}
                </p>
                {admin && (
                  <div class="buttons">
                    <button type="button" class="secondary small" onClick={() => setEditing(endpoint.id)}>
                      Edit
                    </button>
                    <button
                      type="button"
                      class="secondary small"
                      onClick={() =>
                        row.run(async () => {
                          const status = endpoint.status === 'enabled' ? 'disabled' : 'enabled';
                          await patch(endpoint.id, { status });
                          notify(`Endpoint ${status}.`);
                        })
                      }
                    >
                      {endpoint.status === 'enabled' ? 'Disable' : 'Enable'}
                    </button>
                    <ConfirmButton
                      label="Rotate secret"
                      confirmLabel="Rotate now"
                      onConfirm={() =>
                        row.run(async () => {
                          const rotated = await unwrap(
                            api.POST('/v1/webhook-endpoints/{id}/rotate-secret', {
                              params: { path: { id: endpoint.id } },
                            }),
                          );
                          setSecret({
                            label: `New signing secret of ${endpoint.url} (the old one also signs until ${dateTime(rotated.previousSecretExpiresAt)})`,
                            value: rotated.secret,
                          });
                        })
                      }
                    />
                    <ConfirmButton
                      label="Delete"
                      confirmLabel={`Delete ${endpoint.url}`}
                      onConfirm={() =>
                        row.run(async () => {
                          await unwrap(
                            api.DELETE('/v1/webhook-endpoints/{id}', { params: { path: { id: endpoint.id } } }),
                          );
                          endpoints.replace((item) => item.id === endpoint.id, null);
                          notify('Endpoint deleted.');
                        })
                      }
                    />
                  </div>
                )}
              </>
            )}
          </li>
        ))}
      </ul>
      {!endpoints.loading && endpoints.items.length === 0 && <p class="muted">No endpoints yet.</p>}
      <LoadMore hasMore={endpoints.hasMore} loading={endpoints.loading} onClick={endpoints.loadMore} />
    </section>
  );
}
