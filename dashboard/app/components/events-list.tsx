import { useState } from 'preact/hooks';
import { api, unwrap, type Schemas } from '../api.ts';
import { usePaged } from '../hooks.ts';
import { href } from '../router.ts';
import { EventDeliveries } from './event-deliveries.tsx';
import { ErrorText, LoadMore, Time } from './ui.tsx';

/** Webhook events, newest first; each opens to its deliveries and attempts. */
export function EventsList() {
  const events = usePaged<Schemas['Event']>(
    (startingAfter) =>
      unwrap(api.GET('/v1/events', { params: { query: { limit: 20, starting_after: startingAfter } } })),
    'events',
  );
  const [open, setOpen] = useState<string | null>(null);
  return (
    <section aria-labelledby="events-heading">
      <h2 id="events-heading">Events and deliveries</h2>
      <ErrorText error={events.error} />
      {!events.loading && events.items.length === 0 && (
        <p class="muted">
          No events yet: one is recorded each time a generation completes or fails (see{' '}
          <a href={href('/generations')}>Generations</a>), then delivered to the endpoints above.
        </p>
      )}
      <ul class="rows">
        {events.items.map((event) => (
          <li key={event.id} class="row">
            <h3 class="row-title">
              <code>{event.type}</code> <span class="muted">{event.id}</span>
            </h3>
            <p class="muted">
              <Time iso={event.createdAt} /> · generation{' '}
              <a href={href(`/generations/${encodeURIComponent(event.data.id)}`)}>{event.data.id}</a>
            </p>
            <button
              type="button"
              class="secondary small"
              aria-expanded={open === event.id}
              onClick={() => setOpen(open === event.id ? null : event.id)}
            >
              {open === event.id ? 'Hide deliveries' : 'Show deliveries'}
            </button>
            {open === event.id && <EventDeliveries eventId={event.id} />}
          </li>
        ))}
      </ul>
      <LoadMore hasMore={events.hasMore} loading={events.loading} onClick={events.loadMore} />
    </section>
  );
}
