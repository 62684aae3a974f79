import type { Ports } from '../ports/index.ts';
import type { Config } from '../../config/schema.ts';
import { ApiError, notFound } from '../domain/errors.ts';
import { eventFeed, type EventFeedOptions } from './event-feed.ts';
import { scheduleDelivery } from './webhook-delivery.ts';

export type EventService = ReturnType<typeof eventService>;

/** Reading the event log, its deliveries and attempts, and resending. */
export function eventService({
  persistence,
  ids,
  clock,
  config,
  queue,
}: Pick<Ports, 'persistence' | 'ids' | 'clock' | 'queue'> & { config: Config }) {
  async function owned(organizationId: string, id: string) {
    const event = await persistence.events.get(organizationId, id);
    if (!event) throw notFound('event', id);
    return event;
  }

  return {
    list: (
      organizationId: string,
      options: { limit: number; startingAfter?: string; type?: string; generationId?: string },
    ) => persistence.events.list(organizationId, options),

    /** The organization's events as they appear (see event-feed.ts), resuming after `lastEventId` when given. */
    async feed(organizationId: string, options: Omit<EventFeedOptions, 'after'> & { lastEventId?: string }) {
      const { lastEventId, ...rest } = options;
      let after;
      if (lastEventId !== undefined) {
        after = await persistence.events.get(organizationId, lastEventId);
        if (!after) throw notFound('event', lastEventId, 'Last-Event-ID');
      }
      return eventFeed(persistence.events, clock, organizationId, { ...rest, after: after ?? undefined });
    },

    async get(organizationId: string, id: string) {
      const event = await owned(organizationId, id);
      return { event, deliveries: await persistence.deliveries.forEvent(id) };
    },

    async attempts(organizationId: string, id: string) {
      await owned(organizationId, id);
      return persistence.deliveries.attemptsForEvent(id);
    },

    /** New deliveries of the same event (same id and body) to one endpoint, or to every subscribed one. */
    async resend(organizationId: string, id: string, endpointId: string | undefined) {
      const event = await owned(organizationId, id);
      let endpoints;
      if (endpointId) {
        const endpoint = await persistence.webhookEndpoints.get(organizationId, endpointId);
        if (!endpoint) throw notFound('webhook endpoint', endpointId, 'endpointId');
        if (endpoint.status !== 'enabled')
          throw new ApiError(
            'invalid_request_error',
            'endpoint_disabled',
            'The endpoint is disabled; enable it first.',
            'endpointId',
          );
        endpoints = [endpoint];
      } else {
        endpoints = await persistence.webhookEndpoints.subscribedTo(organizationId, event.type);
      }
      const now = clock.now();
      const deliveries = await persistence.transaction(async (tx) => {
        const scheduled = [];
        for (const endpoint of endpoints)
          scheduled.push(await scheduleDelivery(tx, { ids, config, queue }, event, endpoint, now));
        return scheduled;
      });
      queue.notify();
      return deliveries;
    },
  };
}
