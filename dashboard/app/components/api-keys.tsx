import { useState } from 'preact/hooks';
import { api, unwrap, type Schemas } from '../api.ts';
import { usePaged } from '../hooks.ts';
import { useIsAdmin } from '../session.ts';
import { useNotify } from './notices.tsx';
import { ConfirmButton, ErrorText, LoadMore, ShownOnce, StatusBadge, Time, useAction, ScrollTable } from './ui.tsx';

type ApiKey = Schemas['ApiKey'];

/** Secret keys (servers) and conversion keys (order webhooks): create (shown once), revoke, last use. */
export function ApiKeys() {
  const admin = useIsAdmin();
  const notify = useNotify();
  const keys = usePaged<ApiKey>(
    (startingAfter) =>
      unwrap(api.GET('/v1/api-keys', { params: { query: { limit: 20, starting_after: startingAfter } } })),
    'api-keys',
  );
  const [kind, setKind] = useState<'secret' | 'conversion'>('secret');
  const [name, setName] = useState('');
  const [created, setCreated] = useState<string | null>(null);
  const create = useAction();
  const revoke = useAction();

  return (
    <section aria-labelledby="keys-heading">
      <h2 id="keys-heading">API keys</h2>
      <p class="muted">
        Secret keys call the API from your server; conversion keys only report orders (the order webhook).
      </p>
      {admin && (
        <form
          class="inline-form"
          aria-label="Create a key"
          onSubmit={(event) => {
            event.preventDefault();
            void create.run(async () => {
              const made = await unwrap(
                api.POST('/v1/api-keys', { body: { kind, ...(name.trim() ? { name: name.trim() } : {}) } }),
              );
              setCreated(made.key);
              setName('');
              keys.reload();
            });
          }}
        >
          <label>
            Kind
            <select value={kind} onChange={(event) => setKind(event.currentTarget.value as 'secret' | 'conversion')}>
              <option value="secret">Secret key</option>
              <option value="conversion">Conversion key</option>
            </select>
          </label>
          <label>
            Name <span class="muted">(optional)</span>
            <input type="text" maxLength={100} value={name} onInput={(event) => setName(event.currentTarget.value)} />
          </label>
          <button type="submit" disabled={create.busy}>
            Create key
          </button>
        </form>
      )}
      <ErrorText error={create.error} />
      {created && <ShownOnce label="Your new key" value={created} onDone={() => setCreated(null)} />}
      <ErrorText error={keys.error ?? revoke.error} />
      <ScrollTable label="API keys table">
        <table>
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Kind</th>
              <th scope="col">Name</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Status</th>
              {admin && (
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {keys.items.map((key) => (
              <tr key={key.id}>
                <th scope="row">
                  <code>{key.displayPrefix}…</code>
                </th>
                <td>{key.kind}</td>
                <td>{key.name ?? '—'}</td>
                <td>
                  <Time iso={key.createdAt} />
                </td>
                <td>{key.lastUsedAt ? <Time iso={key.lastUsedAt} /> : 'never'}</td>
                <td>
                  <StatusBadge status={key.revokedAt ? 'revoked' : 'active'} />
                </td>
                {admin && (
                  <td>
                    {!key.revokedAt && (
                      <ConfirmButton
                        label="Revoke"
                        confirmLabel={`Revoke ${key.displayPrefix}…`}
                        onConfirm={() =>
                          revoke.run(async () => {
                            const revoked = await unwrap(
                              api.DELETE('/v1/api-keys/{id}', { params: { path: { id: key.id } } }),
                            );
                            keys.replace((item) => item.id === key.id, revoked);
                            notify(`Key ${key.displayPrefix}… revoked.`);
                          })
                        }
                      />
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollTable>
      {!keys.loading && !keys.error && keys.items.length === 0 && (
        <p class="muted">
          No keys yet. {admin ? 'Create' : 'An admin creates'} a secret key for your server to call the API (see the{' '}
          <a href="../docs">API reference</a>), or a conversion key for your shop's order webhook.
        </p>
      )}
      <LoadMore hasMore={keys.hasMore} loading={keys.loading} onClick={keys.loadMore} />
    </section>
  );
}
