import { eventTypes } from '../../domain/generation.ts';
import { ref } from './components.ts';
import type { Header, PathFragment } from './types.ts';

/**
 * The events this service sends to your webhook endpoints (the document's top-level `webhooks`):
 * a POST of the Event, signed per Standard Webhooks (https://www.standardwebhooks.com).
 */

const standardWebhookHeaders: Record<string, Header> = {
  'webhook-id': {
    required: true,
    description: 'The event id (`evt_…`), the same on every retry: deduplicate on it.',
    schema: { type: 'string' },
  },
  'webhook-timestamp': {
    required: true,
    description: 'Unix seconds when this attempt was signed; refuse ones too far from now.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  'webhook-signature': {
    required: true,
    description:
      'Space-separated `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`, one per active secret (two during a rotation).',
    schema: { type: 'string' },
  },
};

const described: Record<(typeof eventTypes)[number], string> = {
  'generation.completed': 'A generation finished: `data.imageUrl` and `data.imageVariants` are set.',
  'generation.failed': 'A generation failed and its credits were refunded: `data.error` says why.',
};

function eventOperation(type: (typeof eventTypes)[number]) {
  return {
    post: {
      operationId: type === 'generation.completed' ? 'generationCompletedWebhook' : 'generationFailedWebhook',
      summary: `${type}`,
      description: `${described[type]} Answer any 2xx quickly (within the configured delivery timeout, 10 s by default); anything else is retried with backoff.`,
      tags: ['Webhooks'],
      security: [],
      parameters: Object.entries(standardWebhookHeaders).map(([name, header]) => ({
        name,
        in: 'header' as const,
        ...header,
      })),
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              allOf: [ref('Event'), { type: 'object', required: ['type'], properties: { type: { const: type } } }],
            },
          },
        },
      },
      responses: { '200': { description: 'Received (any 2xx will do).' } },
    },
  };
}

export const outgoingWebhooks: PathFragment = Object.fromEntries(
  eventTypes.map((type) => [type, eventOperation(type)]),
);
