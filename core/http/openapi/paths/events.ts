import {
  jsonBody,
  errorResponses,
  jsonBodyErrors,
  notFoundErrors,
  ok,
  pageParameters,
  pathParameter,
  queryErrors,
  secretKeyErrors,
  serverErrors,
} from '../helpers.ts';
import { eventTypes } from '../../../domain/generation.ts';
import type { PathFragment } from '../types.ts';

const tags = ['Events'];
const eventId = pathParameter('id', 'The event id (`evt_…`).');

export const eventPaths: PathFragment = {
  '/v1/events': {
    get: {
      operationId: 'listEvents',
      summary: 'List events',
      description: 'The events sent to your webhook endpoints, newest first, exactly as deliveries carry them.',
      tags,
      parameters: [
        ...pageParameters,
        {
          name: 'type',
          in: 'query',
          description: 'Only events of this type.',
          schema: { type: 'string', enum: [...eventTypes] },
        },
        {
          name: 'generationId',
          in: 'query',
          description:
            "Only the events reporting this generation (`agen_…`); its deliveries' attempts are at `/v1/events/{id}/attempts`.",
          schema: { type: 'string', minLength: 1, maxLength: 64 },
        },
      ],
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
        ...jsonBody('ResendEventRequest', { endpointId: 'whe_2aXbQ4mR7kP9sT1vW3yZ5cD8' }),
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
