import { useEffect, useState } from 'preact/hooks';
import { api, messageOf, unwrap, type Schemas } from '../api.ts';
import { useNotify } from '../components/notices.tsx';
import {
  ConfirmButton,
  ErrorText,
  LoadMore,
  PageTitle,
  ScrollTable,
  ShortId,
  StatusBadge,
  Time,
} from '../components/ui.tsx';
import { money } from '../format.ts';
import { usePaged, type Paged } from '../hooks.ts';
import { href } from '../router.ts';
import { useIsAdmin } from '../session.ts';

type Visitor = Schemas['Visitor'];
type Erasure = Schemas['VisitorErasure'];

const lookUp = (visitorId: string) => unwrap(api.GET('/v1/visitors/{visitorId}', { params: { path: { visitorId } } }));

/**
 * A shopper's GDPR requests: find a widget visitor by the id the SDK gave their browser, see (and
 * download) what is held about them, erase them (admins), and the erasures made so far. The
 * visitor id stays in the page's state, not in its address, so it is kept out of the history.
 */
export function PrivacyPage() {
  const [typed, setTyped] = useState('');
  const [visitor, setVisitor] = useState<Visitor | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const erasures = usePaged<Erasure>(
    (startingAfter) =>
      unwrap(api.GET('/v1/visitor-erasures', { params: { query: { limit: 10, starting_after: startingAfter } } })),
    'erasures',
  );

  const find = async (visitorId: string) => {
    setBusy(true);
    setError(null);
    try {
      setVisitor(await lookUp(visitorId));
    } catch (failure) {
      setVisitor(null);
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageTitle>Privacy</PageTitle>
      <p class="muted">
        Answer a shopper's access or erasure request. A widget visitor is known by the id the SDK gave their browser:
        your page reads it with <code>Visualizer.getIdentity().visitorId</code>, and orders you report carry it.
      </p>
      <form
        class="inline-form"
        aria-label="Find a visitor"
        onSubmit={(event) => {
          event.preventDefault();
          const visitorId = typed.trim();
          if (visitorId) void find(visitorId);
        }}
      >
        <label>
          Visitor id
          <input
            type="search"
            required
            maxLength={256}
            value={typed}
            onInput={(event) => setTyped(event.currentTarget.value)}
            autoComplete="off"
            spellcheck={false}
          />
        </label>
        <button type="submit" disabled={busy}>
          Look up
        </button>
      </form>
      <ErrorText error={error} />
      {visitor && (
        <Held
          visitor={visitor}
          onErasing={() => erasures.reload()}
          onErased={() => (erasures.reload(), void find(visitor.visitorId))}
        />
      )}
      <Erasures list={erasures} />
    </>
  );
}

function Held({ visitor, onErasing, onErased }: { visitor: Visitor; onErasing: () => void; onErased: () => void }) {
  const { generations, identities, conversions } = visitor;
  const nothing = generations.total + identities.total + conversions.total === 0;
  const download = `data:application/json;charset=utf-8,${encodeURIComponent(JSON.stringify(visitor, null, 2))}`;
  return (
    <section class="held" aria-labelledby="held-heading">
      <h2 id="held-heading">
        What is held about <code>{visitor.visitorId}</code>
      </h2>
      <dl class="cards">
        <div>
          <dt>Generations</dt>
          <dd>{generations.total}</dd>
        </div>
        <div>
          <dt>Identities</dt>
          <dd>{identities.total}</dd>
        </div>
        <div>
          <dt>Conversions</dt>
          <dd>{conversions.total}</dd>
        </div>
      </dl>
      {nothing ? (
        <p>
          Nothing is held about this visitor.{' '}
          <span class="muted">
            Check that the id is the one the SDK gave their browser (<code>Visualizer.getIdentity().visitorId</code>); a
            visitor already erased is listed under Erasures below, without their id.
          </span>
        </p>
      ) : (
        <p class="buttons">
          <a
            class="button-link"
            href={download}
            download={`visitor-${visitor.visitorId.replace(/[^\w.-]+/g, '_').slice(0, 64)}.json`}
          >
            Download as JSON
          </a>
          <span class="muted">for the shopper: everything listed here, as the API answers it.</span>
        </p>
      )}
      {visitor.pendingErasure && <ErasureProgress erasure={visitor.pendingErasure} onErased={onErased} />}
      {generations.total > 0 && <Generations items={generations} />}
      {identities.total > 0 && <Identities items={identities} />}
      {conversions.total > 0 && <Conversions items={conversions} />}
      {!visitor.pendingErasure && <Erase visitor={visitor} onErasing={onErasing} onErased={onErased} />}
    </section>
  );
}

/**
 * "Showing 100 of 250", when the answer left some out: the download holds only those shown, so the
 * page says where the rest are (the API's paged list of the kind) for a complete copy.
 */
function Shown({
  items,
  what,
}: {
  items: { total: number; data: unknown[]; has_more: boolean };
  what: 'generations' | 'identities' | 'conversions';
}) {
  if (!items.has_more) return null;
  return (
    <p class="muted">
      Showing the newest {items.data.length} of {items.total} {what}. The download holds only these: for a complete
      copy, page through all of them with the API (
      <code>
        GET /v1/visitors/{'{visitorId}'}/{what}
      </code>
      ). An erasure takes them all.
    </p>
  );
}

function Generations({ items }: { items: Visitor['generations'] }) {
  return (
    <>
      <h3>Generations</h3>
      <Shown items={items} what="generations" />
      <ScrollTable label="The visitor's generations">
        <table>
          <thead>
            <tr>
              <th scope="col">Generation</th>
              <th scope="col">Made</th>
              <th scope="col">Status</th>
              <th scope="col">Products</th>
              <th scope="col">Store</th>
              <th scope="col">Session</th>
            </tr>
          </thead>
          <tbody>
            {items.data.map((generation) => (
              <tr key={generation.id}>
                <th scope="row">
                  <ShortId id={generation.id} href={href(`/generations/${encodeURIComponent(generation.id)}`)} />
                </th>
                <td>
                  <Time iso={generation.createdAt} />
                </td>
                <td>
                  <StatusBadge status={generation.status} />
                </td>
                <td>{generation.products.map((product) => product.productTitle).join(', ')}</td>
                <td>{generation.storeId ? <ShortId id={generation.storeId} /> : '—'}</td>
                <td>
                  <code>{generation.sessionId ?? '—'}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollTable>
    </>
  );
}

function Identities({ items }: { items: Visitor['identities'] }) {
  return (
    <>
      <h3>Identities</h3>
      <Shown items={items} what="identities" />
      <ScrollTable label="The visitor's identities">
        <table>
          <thead>
            <tr>
              <th scope="col">Your user id</th>
              <th scope="col">Traits</th>
              <th scope="col">Store</th>
              <th scope="col">Session</th>
              <th scope="col">Identified</th>
            </tr>
          </thead>
          <tbody>
            {items.data.map((identity) => (
              <tr key={identity.storeId}>
                <th scope="row">
                  <code>{identity.userId}</code>
                </th>
                <td>
                  <code>{JSON.stringify(identity.traits)}</code>
                </td>
                <td>
                  <ShortId id={identity.storeId} />
                </td>
                <td>
                  <code>{identity.sessionId ?? '—'}</code>
                </td>
                <td>
                  <Time iso={identity.updatedAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollTable>
    </>
  );
}

function Conversions({ items }: { items: Visitor['conversions'] }) {
  return (
    <>
      <h3>Conversions</h3>
      <Shown items={items} what="conversions" />
      <ScrollTable label="The visitor's conversions">
        <table>
          <thead>
            <tr>
              <th scope="col">Order</th>
              <th scope="col">Ordered</th>
              <th scope="col">Total</th>
              <th scope="col">Visitor id</th>
              <th scope="col">Session</th>
            </tr>
          </thead>
          <tbody>
            {items.data.map((conversion) => (
              <tr key={conversion.id}>
                <th scope="row">
                  <code>{conversion.orderId}</code>
                </th>
                <td>
                  <Time iso={conversion.orderCreatedAt} />
                </td>
                <td class="number">{money(conversion.totalCents, conversion.currency)}</td>
                <td>
                  <code>{conversion.visitorId ?? '—'}</code>
                </td>
                <td>
                  <code>{conversion.sessionId ?? '—'}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollTable>
    </>
  );
}

function Erase({ visitor, onErasing, onErased }: { visitor: Visitor; onErasing: () => void; onErased: () => void }) {
  const admin = useIsAdmin();
  const notify = useNotify();
  const [error, setError] = useState<string | null>(null);
  const [started, setStarted] = useState<Erasure | null>(null);
  if (started) return <ErasureProgress erasure={started} onErased={onErased} />;
  return (
    <div class="erase">
      <h3>Erase</h3>
      <p>
        Deletes the visitor's generations with their images and their identities, and removes the visitor and session
        ids from their conversions, which stay for your revenue figures. The record of the erasure keeps who asked and
        how much was erased, never the visitor's ids.
      </p>
      {admin ? (
        <ConfirmButton
          label="Erase this visitor…"
          confirmLabel="Erase everything about this visitor"
          onConfirm={async () => {
            setError(null);
            try {
              const erasure = await unwrap(
                api.DELETE('/v1/visitors/{visitorId}', { params: { path: { visitorId: visitor.visitorId } } }),
              );
              setStarted(erasure);
              notify('Erasure started.');
              onErasing();
            } catch (failure) {
              setError(messageOf(failure));
            }
          }}
        />
      ) : (
        <p class="muted">Only admins can erase a visitor.</p>
      )}
      <ErrorText error={error} />
    </div>
  );
}

/** An erasure under way, followed until it completes (once a second). */
function ErasureProgress({ erasure, onErased }: { erasure: Erasure; onErased: () => void }) {
  const [current, setCurrent] = useState(erasure);
  const notify = useNotify();
  useEffect(() => {
    if (current.status === 'complete') return;
    const timer = setTimeout(async () => {
      try {
        const next = await unwrap(api.GET('/v1/visitor-erasures/{id}', { params: { path: { id: current.id } } }));
        setCurrent(next);
        if (next.status === 'complete') {
          notify('Erasure complete.');
          onErased();
        }
      } catch {
        setCurrent({ ...current });
      }
    }, 1000);
    return () => clearTimeout(timer);
  }, [current]);
  return (
    <p class="erasure-progress" role="status">
      <StatusBadge status={current.status} /> Erasure {current.status === 'complete' ? 'complete' : 'under way'}:{' '}
      {current.generationsDeleted} generations and {current.identitiesDeleted} identities deleted,{' '}
      {current.conversionsUnlinked} conversions unlinked so far.
    </p>
  );
}

function Erasures({ list }: { list: Paged<Erasure> }) {
  return (
    <section aria-labelledby="erasures-heading">
      <h2 id="erasures-heading">Erasures</h2>
      <p class="muted">
        Every erasure requested, newest first: who asked, when, and how much it erased. They name no visitor.
      </p>
      <ErrorText error={list.error} />
      {!list.loading && !list.error && list.items.length === 0 && (
        <p class="muted">
          No erasure requested yet. To answer an erasure request, look the visitor up above and erase them (admins), or
          call <code>DELETE /v1/visitors/{'{visitorId}'}</code> (see the <a href="../docs">API reference</a>).
        </p>
      )}
      {list.items.length > 0 && (
        <ScrollTable label="Erasures table">
          <table>
            <thead>
              <tr>
                <th scope="col">Requested</th>
                <th scope="col">By</th>
                <th scope="col">Status</th>
                <th scope="col">Completed</th>
                <th scope="col">Generations deleted</th>
                <th scope="col">Identities deleted</th>
                <th scope="col">Conversions unlinked</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((erasure) => (
                <tr key={erasure.id}>
                  <th scope="row">
                    <Time iso={erasure.requestedAt} />
                  </th>
                  <td>
                    {erasure.requestedBy.type === 'api_key' ? 'API key' : 'user'} <code>{erasure.requestedBy.id}</code>
                  </td>
                  <td>
                    <StatusBadge status={erasure.status} />
                  </td>
                  <td>
                    <Time iso={erasure.completedAt} />
                  </td>
                  <td class="number">{erasure.generationsDeleted}</td>
                  <td class="number">{erasure.identitiesDeleted}</td>
                  <td class="number">{erasure.conversionsUnlinked}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      )}
      <LoadMore hasMore={list.hasMore} loading={list.loading} onClick={list.loadMore} />
    </section>
  );
}
