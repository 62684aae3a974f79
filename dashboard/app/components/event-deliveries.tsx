import { api, unwrap } from '../api.ts';
import { endpointUrls } from '../endpoint-urls.ts';
import { useLoad } from '../hooks.ts';
import { href } from '../router.ts';
import { useIsAdmin } from '../session.ts';
import { useNotify } from './notices.tsx';
import { ErrorText, ScrollTable, ShortId, StatusBadge, Time, useAction } from './ui.tsx';

/** An endpoint by its URL (its id in the tooltip), or by its id once it has been deleted. */
function EndpointName({ id, urls }: { id: string; urls: ReadonlyMap<string, string> }) {
  const url = urls.get(id);
  return url ? (
    <span class="url" title={id}>
      {url}
    </span>
  ) : (
    <span>
      <ShortId id={id} /> <span class="muted">(deleted)</span>
    </span>
  );
}

/**
 * An event's deliveries (one per endpoint) and every attempt of them: when, the status code, how
 * long, the error and the receiver's response body; admins may resend it.
 */
export function EventDeliveries({ eventId }: { eventId: string }) {
  const admin = useIsAdmin();
  const notify = useNotify();
  const resend = useAction();
  const details = useLoad(async () => {
    const [event, attempts] = await Promise.all([
      unwrap(api.GET('/v1/events/{id}', { params: { path: { id: eventId } } })),
      unwrap(api.GET('/v1/events/{id}/attempts', { params: { path: { id: eventId } } })),
    ]);
    const ids = [...event.deliveries, ...attempts.data].map((item) => item.endpointId);
    return [event, attempts, ids.length ? await endpointUrls(ids) : new Map<string, string>()] as const;
  }, eventId);
  if (details.error) return <ErrorText error={details.error} />;
  if (!details.value) return <p class="muted">Loading deliveries…</p>;
  const [event, attempts, urls] = details.value;
  return (
    <div class="deliveries">
      {event.deliveries.length === 0 ? (
        <p class="muted">
          No deliveries: no enabled endpoint was subscribed to this event. Add one under{' '}
          <a href={href('/developers')}>Developers → Webhook endpoints</a>, or receive events on your own machine with{' '}
          <code>npx visualizer listen</code> (see <code>docs/webhooks.md</code>).
        </p>
      ) : (
        <ScrollTable label={`Deliveries of ${eventId}`}>
          <table>
            <caption>Deliveries of {eventId}</caption>
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Next attempt</th>
                <th scope="col">Last error</th>
              </tr>
            </thead>
            <tbody>
              {event.deliveries.map((delivery) => (
                <tr key={delivery.id}>
                  <th scope="row">
                    <EndpointName id={delivery.endpointId} urls={urls} />
                  </th>
                  <td>
                    <StatusBadge status={delivery.status} />
                  </td>
                  <td class="number">{delivery.attemptCount}</td>
                  <td>
                    <Time iso={delivery.nextAttemptAt} />
                  </td>
                  <td>{delivery.lastError ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      )}
      {attempts.data.length > 0 && (
        <ScrollTable label={`Attempts of ${eventId}`}>
          <table>
            <caption>Attempts of {eventId}</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Endpoint</th>
                <th scope="col">Status code</th>
                <th scope="col">Duration</th>
                <th scope="col">Error</th>
                <th scope="col">Response body</th>
              </tr>
            </thead>
            <tbody>
              {attempts.data.map((attempt) => (
                <tr key={attempt.id}>
                  <th scope="row">
                    <Time iso={attempt.attemptedAt} />
                  </th>
                  <td>
                    <EndpointName id={attempt.endpointId} urls={urls} />
                  </td>
                  <td class="number">{attempt.statusCode ?? '—'}</td>
                  <td class="number">{attempt.durationMs} ms</td>
                  <td>{attempt.error ?? '—'}</td>
                  <td>
                    {attempt.responseBody ? (
                      <details>
                        <summary>Show</summary>
                        <pre tabIndex={0} aria-label="Response body">
                          {attempt.responseBody}
                        </pre>
                      </details>
                    ) : (
                      '—'
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      )}
      {admin && (
        <p>
          <button
            type="button"
            class="secondary small"
            disabled={resend.busy}
            onClick={() =>
              resend.run(async () => {
                await unwrap(api.POST('/v1/events/{id}/resend', { params: { path: { id: eventId } }, body: {} }));
                notify(`Event ${eventId} queued for delivery again.`);
                details.reload();
              })
            }
          >
            Resend event
          </button>
        </p>
      )}
      <ErrorText error={resend.error} />
    </div>
  );
}
