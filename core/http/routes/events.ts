import type { H3, H3Event } from 'h3';
import * as v from 'valibot';
import { eventTypes } from '../../domain/generation.ts';
import { couldBeId, maxIdLength } from '../../domain/text.ts';
import type { DeliveryAttempt, DeliveryRecord } from '../../domain/delivery.ts';
import type { OutboxEvent } from '../../domain/outbox-event.ts';
import { readValidJson, validate } from '../body.ts';
import { requireKey, services } from '../context.ts';
import { isoTime, isoTimeOrNull } from '../format.ts';
import { pageQuerySchema, pathId, queryOf } from '../params.ts';
import type { RouteLimits } from '../rate-limit.ts';
import {
  jsonBody,
  errorResponses,
  jsonBodyErrors,
  notFoundErrors,
  ok,
  pageNotes,
  pathParameter,
  queryErrors,
  secretKeyErrors,
  serverErrors,
} from '../openapi/helpers.ts';
import { queryParameters } from '../openapi/query-parameters.ts';
import type { PathFragment } from '../openapi/types.ts';

/** The event exactly as its deliveries carry it. */
const eventResource = (event: OutboxEvent) => JSON.parse(event.body) as Record<string, unknown>;

const deliveryResource = (delivery: DeliveryRecord) => ({
  id: delivery.id,
  object: 'webhook_delivery',
  endpointId: delivery.endpointId,
  status: delivery.status,
  attemptCount: delivery.attemptCount,
  nextAttemptAt: delivery.status === 'pending' ? isoTimeOrNull(delivery.nextAttemptAt) : null,
  lastError: delivery.lastError,
  createdAt: isoTime(delivery.createdAt),
  updatedAt: isoTime(delivery.updatedAt),
});

const attemptResource = (attempt: DeliveryAttempt & { endpointId: string }) => ({
  id: attempt.id,
  object: 'webhook_attempt',
  deliveryId: attempt.deliveryId,
  endpointId: attempt.endpointId,
  attemptedAt: isoTime(attempt.attemptedAt),
  statusCode: attempt.statusCode,
  error: attempt.error,
  durationMs: attempt.durationMs,
  responseBody: attempt.responseBody,
});

const listQuery = v.object({
  ...pageQuerySchema.entries,
  type: v.optional(v.picklist(eventTypes, `must be one of ${eventTypes.join(', ')}`)),
  /** A generation's events, for its detail view; an id that names none lists nothing. */
  generationId: v.optional(
    v.pipe(v.string(), v.check(couldBeId, `must be a generation id (1 to ${maxIdLength} characters)`)),
  ),
});
/** Exported for the OpenAPI document. */
export const resendBody = v.strictObject({
  endpointId: v.optional(
    v.pipe(
      v.string('must be a string'),
      v.minLength(1),
      v.maxLength(64),
      v.description('Only to this endpoint; omitted, to every enabled endpoint subscribed to the event.'),
    ),
  ),
});

const tags = ['Events'];
const eventId = pathParameter('id', 'The event id (`evt_…`).');

export const eventPaths: PathFragment = {
  '/v1/events': {
    get: {
      operationId: 'listEvents',
      summary: 'List events',
      description: 'The events sent to your webhook endpoints, newest first, exactly as deliveries carry them.',
      tags,
      parameters: queryParameters(listQuery, {
        ...pageNotes,
        type: { description: 'Only events of this type.' },
        generationId: {
          description:
            "Only the events reporting this generation (`agen_…`); its deliveries' attempts are at `/v1/events/{id}/attempts`.",
        },
      }),
      responses: {
        '200': ok('A page of events.', 'EventList'),
        ...errorResponses(serverErrors, secretKeyErrors, queryErrors),
      },
    },
  },
  '/v1/events/{id}': {
    get: {
      operationId: 'getEvent',
      summary: 'Get an event and its deliveries',
      tags,
      parameters: [eventId],
      responses: {
        '200': ok('The event with one delivery per endpoint.', 'EventWithDeliveries'),
        ...errorResponses(serverErrors, secretKeyErrors, notFoundErrors),
      },
    },
  },
  '/v1/events/{id}/attempts': {
    get: {
      operationId: 'listEventAttempts',
      summary: "List an event's delivery attempts",
      description: 'Every HTTP attempt of every delivery of the event, oldest first, in one page.',
      tags,
      parameters: [eventId],
      responses: {
        '200': ok('The attempts.', 'WebhookAttemptList'),
        ...errorResponses(serverErrors, secretKeyErrors, notFoundErrors),
      },
    },
  },
  '/v1/events/{id}/resend': {
    post: {
      operationId: 'resendEvent',
      summary: 'Resend an event',
      description:
        'Queues a new delivery of the event to one endpoint, or to every enabled endpoint subscribed to it. The body is optional.',
      tags,
      parameters: [eventId],
      requestBody: {
        ...jsonBody('ResendEventRequest', resendBody, { endpointId: 'whe_2aXbQ4mR7kP9sT1vW3yZ5cD8' }),
        required: false,
      },
      responses: {
        '202': ok('The deliveries queued.', 'WebhookDeliveryList'),
        ...errorResponses(serverErrors, secretKeyErrors, notFoundErrors, jsonBodyErrors, {
          400: ['endpoint_disabled'],
        }),
      },
    },
  },
};

export function eventRoutes(app: H3, limits: RouteLimits) {
  const authorized = async (event: H3Event) => {
    const key = await requireKey(event, 'secret');
    await limits.read.take(key.id);
    return { organizationId: key.organizationId, events: services(event).events };
  };
  /** After authorized(): the caller is known before the id is looked at. */
  const eventId = (event: H3Event) => pathId(event, 'id', 'event');

  app.get('/v1/events', async (event) => {
    const { organizationId, events } = await authorized(event);
    const query = validate(listQuery, queryOf(event));
    const limit = Number(query.limit);
    const page = await events.list(organizationId, {
      limit: limit + 1,
      startingAfter: query.starting_after,
      type: query.type,
      generationId: query.generationId,
    });
    return { object: 'list', data: page.slice(0, limit).map(eventResource), has_more: page.length > limit };
  });

  app.get('/v1/events/:id', async (event) => {
    const { organizationId, events } = await authorized(event);
    const found = await events.get(organizationId, eventId(event));
    return { ...eventResource(found.event), deliveries: found.deliveries.map(deliveryResource) };
  });

  app.get('/v1/events/:id/attempts', async (event) => {
    const { organizationId, events } = await authorized(event);
    const attempts = await events.attempts(organizationId, eventId(event));
    return { object: 'list', data: attempts.map(attemptResource), has_more: false };
  });

  app.post('/v1/events/:id/resend', async (event) => {
    const { organizationId, events } = await authorized(event);
    const id = eventId(event);
    const hasBody =
      (event.req.headers.get('content-length') ?? '0') !== '0' || event.req.headers.has('transfer-encoding');
    const body = hasBody ? await readValidJson(event, resendBody) : {};
    const deliveries = await events.resend(organizationId, id, body.endpointId);
    event.res.status = 202;
    return { object: 'list', data: deliveries.map(deliveryResource), has_more: false };
  });
}
