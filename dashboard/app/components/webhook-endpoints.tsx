import { useState } from 'preact/hooks';
import { api, ApiFailure, unwrap, type Schemas } from '../api.ts';
import { forgetEndpointUrls } from '../endpoint-urls.ts';
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

/** How to receive events on a development machine, which endpoints cannot reach (see docs/webhooks.md). */
const listenCommand =
  'VISUALIZER_API_KEY=visualizer_… npx visualizer listen --forward-to http://localhost:4000/webhooks';

/** A URL only a local receiver answers: plain http, or a loopback, private or `.localhost` host. */
function looksLocal(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return (
    url.protocol === 'http:' ||
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '::1' ||
    /^(127|10)\.|^192\.168\.|^172\.(1[6-9]|2\d|3[01])\.|^0\.0\.0\.0$/.test(host)
  );
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
  // The URL the server last refused, when it was one only `visualizer listen` can reach.
  const [refusedLocal, setRefusedLocal] = useState(false);
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
        setRefusedLocal(false);
        void action.run(async () => {
          try {
            await onSubmit(draft);
          } catch (error) {
            setRefusedLocal(error instanceof ApiFailure && error.param === 'url' && looksLocal(draft.url));
            throw error;
          }
        });
      }}
    >
      <label>
        URL
        <input
          type="url"
          required
          placeholder="https://shop.example/webhooks/visualizer"
          aria-describedby="endpoint-url-hint"
          value={draft.url}
          onInput={(event) => setDraft({ ...draft, url: event.currentTarget.value })}
        />
      </label>
      <p class="muted field-hint" id="endpoint-url-hint">
        A public <code>https://</code> URL. For a receiver on this machine (<code>http://localhost</code>), run{' '}
        <code>npx visualizer listen --forward-to http://localhost:PORT/…</code> instead.
      </p>
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
      {action.error && refusedLocal && (
        <p class="listen-hint">
          The service delivers only to public <code>https://</code> addresses. To receive events locally, run{' '}
          <code>{listenCommand}</code>: it forwards each event, signed, to your local URL (step by step in{' '}
          <code>docs/webhooks.md</code>, “Receiving webhooks on your own machine”; the API's endpoints are in the{' '}
          <a href="../docs">API reference</a>).
        </p>
      )}
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

  const patch = async (id: string, body: Schemas['UpdateWebhookEndpointRequest']) => {
    const updated = await unwrap(api.PATCH('/v1/webhook-endpoints/{id}', { params: { path: { id } }, body }));
    forgetEndpointUrls();
    endpoints.replace((item) => item.id === id, updated);
  };

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
            forgetEndpointUrls();
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
                          forgetEndpointUrls();
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
      {!endpoints.loading && endpoints.items.length === 0 && (
        <p class="muted">
          No endpoints yet. {admin ? 'Add one' : 'An admin adds one'} with the public <code>https://</code> URL of your
          server to have it told when a generation completes or fails (signed as described in{' '}
          <code>docs/webhooks.md</code>); on your own machine, use <code>npx visualizer listen</code>.
        </p>
      )}
      <LoadMore hasMore={endpoints.hasMore} loading={endpoints.loading} onClick={endpoints.loadMore} />
    </section>
  );
}
