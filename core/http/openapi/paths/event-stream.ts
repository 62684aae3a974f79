import { eventTypes } from '../../../domain/generation.ts';
import { eventStreamDefaults } from '../../routes/event-stream.ts';
import { exampleEventStreamMessage } from '../examples.ts';
import { errorResponses, notFoundErrors, queryErrors, secretKeyErrors, serverErrors } from '../helpers.ts';
import type { PathFragment } from '../types.ts';

const minutes = eventStreamDefaults.maxDurationMs / 60_000;

/** core/http/routes/event-stream.ts; `visualizer listen` is its client. */
export const eventStreamPaths: PathFragment = {
  '/v1/events/stream': {
    get: {
      operationId: 'streamEvents',
      summary: 'Stream events as they happen (Server-Sent Events)',
      description: [
        "The organization's events from now on, as `text/event-stream`: one message per event with `id:` the event id, `event:` its type and `data:` the event exactly as webhook deliveries carry it. ",
        `A comment line comes at least every ${eventStreamDefaults.heartbeatMs / 1000} s. `,
        `A stream ends after ${minutes} minutes and when the server stops; reconnect with \`Last-Event-ID\` to continue after the last event received. `,
        `At most ${eventStreamDefaults.maxStreamsPerKey} streams may be open at once per API key. `,
        'For development (`visualizer listen` forwards the stream to a local URL); production receivers use webhook endpoints.',
      ].join(''),
      tags: ['Events'],
      parameters: [
        {
          name: 'types',
          in: 'query',
          description: 'Only events of these types, comma-separated (`types=generation.completed,generation.failed`).',
          style: 'form',
          explode: false,
          schema: { type: 'array', items: { type: 'string', enum: [...eventTypes] }, minItems: 1, uniqueItems: true },
          example: ['generation.completed', 'generation.failed'],
        },
        {
          name: 'Last-Event-ID',
          in: 'header',
          description:
            'The id of the last event received on a previous stream: this one sends the events after it (in creation order) first. Deduplicate by id around a reconnection.',
          schema: { type: 'string', minLength: 1, maxLength: 64 },
        },
      ],
      responses: {
        '200': {
          description: 'The stream; it stays open until the time limit, the server stopping, or the client closing it.',
          content: {
            'text/event-stream': {
              schema: { type: 'string' },
              example: exampleEventStreamMessage,
            },
          },
        },
        ...errorResponses(serverErrors, secretKeyErrors, queryErrors, notFoundErrors, {
          400: ['parameter_invalid'],
          429: ['too_many_streams'],
        }),
      },
    },
  },
};
