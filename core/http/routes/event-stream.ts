import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventStream, type H3, type H3Event } from 'h3';
import { ApiError } from '../../domain/errors.ts';
import { couldBeId, escapeUnstorable } from '../../domain/text.ts';
import { requestLogger, requireKey, services } from '../context.ts';
import { queryOf } from '../params.ts';
import type { RouteLimits } from '../rate-limit.ts';
import { eventTypes } from '../../domain/generation.ts';
import { exampleEventStreamMessage } from '../openapi/examples.ts';
import { errorResponses, notFoundErrors, queryErrors, secretKeyErrors, serverErrors } from '../openapi/helpers.ts';
import type { PathFragment } from '../openapi/types.ts';

export interface EventStreamSettings {
  /** How often a stream reads the event log for new events. */
  pollMs: number;
  /** A comment after this long without a message, so proxies and clients see the connection alive. */
  heartbeatMs: number;
  /** A stream ends after this long (by the service's clock); the client reconnects with `Last-Event-ID`. */
  maxDurationMs: number;
  /** How far back each read looks again for events whose transactions committed late (see event-feed.ts). */
  overlapMs: number;
  /** Streams open at once per API key, per process. */
  maxStreamsPerKey: number;
  pageSize: number;
  maxRemembered: number;
}

export const eventStreamDefaults: EventStreamSettings = {
  pollMs: 500,
  heartbeatMs: 15_000,
  maxDurationMs: 30 * 60_000,
  overlapMs: 10_000,
  maxStreamsPerKey: 5,
  pageSize: 100,
  maxRemembered: 10_000,
};

/** How long past its maximum duration a stream whose client stopped reading is left before its connection is cut. */
const stuckGraceMs = 60_000;

/** `types=generation.completed,generation.failed`: each named once, each a known type. */
function typesOf(event: H3Event): string[] | undefined {
  const text = queryOf(event).types;
  if (text === undefined) return undefined;
  const types = [...new Set(text.split(',').map((type) => type.trim()))];
  const unknown = types.find((type) => !(eventTypes as readonly string[]).includes(type));
  if (unknown !== undefined) {
    const shown = unknown.length > 64 ? `${unknown.slice(0, 64)}…` : unknown;
    throw new ApiError(
      'invalid_request_error',
      'parameter_invalid',
      `types: '${escapeUnstorable(shown)}' is not an event type; use a comma-separated list of ${eventTypes.join(', ')}`,
      'types',
    );
  }
  return types;
}

/** `Last-Event-ID`, as an SSE client sends it on reconnecting; one that cannot be an id is refused before any lookup. */
function lastEventId(event: H3Event): string | undefined {
  const value = event.req.headers.get('last-event-id')?.trim();
  if (!value) return undefined;
  if (!couldBeId(value))
    throw new ApiError(
      'invalid_request_error',
      'parameter_invalid',
      'Last-Event-ID: must be the id of an event this stream sent',
      'Last-Event-ID',
    );
  return value;
}

/**
 * The Node server this request arrived on. It stops listening the moment a graceful shutdown
 * begins, which is how an open stream learns to end instead of holding the shutdown up.
 */
const serverOf = (event: H3Event): Server | undefined =>
  ((event.runtime?.node?.req as IncomingMessage | undefined)?.socket as { server?: Server } | undefined)?.server;

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

/**
 * `GET /v1/events/stream`: the organization's events as Server-Sent Events while they happen,
 * each `id: <event id>`, `event: <type>`, `data: <the event exactly as deliveries carry it>`.
 * Events are written by any process, so each stream polls the event log (see event-feed.ts).
 */
export function eventStreamRoutes(app: H3, limits: RouteLimits, overrides: Partial<EventStreamSettings> = {}) {
  const settings = { ...eventStreamDefaults, ...overrides };
  /** Open streams by API key id. */
  const open = new Map<string, number>();
  const release = (keyId: string) => {
    const left = (open.get(keyId) ?? 1) - 1;
    if (left > 0) open.set(keyId, left);
    else open.delete(keyId);
  };

  app.get('/v1/events/stream', async (event) => {
    const key = await requireKey(event, 'secret');
    await limits.read.take(key.id);
    const types = typesOf(event);
    const resumeAfter = lastEventId(event);
    const cradle = services(event);
    if ((open.get(key.id) ?? 0) >= settings.maxStreamsPerKey) {
      throw new ApiError(
        'rate_limit_error',
        'too_many_streams',
        `At most ${settings.maxStreamsPerKey} event streams may be open at once per API key; close one first.`,
        null,
        {
          retryAfterSeconds: 5,
        },
      );
    }
    // Counted before the first await, so a burst of requests cannot all pass the check.
    open.set(key.id, (open.get(key.id) ?? 0) + 1);
    let feed;
    try {
      feed = await cradle.events.feed(key.organizationId, {
        types,
        lastEventId: resumeAfter,
        overlapMs: settings.overlapMs,
        pageSize: settings.pageSize,
        maxRemembered: settings.maxRemembered,
      });
    } catch (error) {
      release(key.id);
      throw error;
    }

    const stream = new EventStream(event);
    // The connection is the stream's own: closing it with the stream lets a stopping server finish at once.
    event.res.headers.set('connection', 'close');
    const done = new AbortController();
    // A client that stops reading holds the stream in a write that never ends; past the maximum
    // duration (and a grace period) its connection is cut so it cannot keep a slot forever.
    const cut = setTimeout(
      () => (event.runtime?.node?.res as ServerResponse | undefined)?.destroy(),
      settings.maxDurationMs + stuckGraceMs,
    );
    cut.unref();
    let released = false;
    stream.onClosed(() => {
      done.abort();
      clearTimeout(cut);
      if (!released) release(key.id);
      released = true;
    });
    event.req.signal?.addEventListener('abort', () => done.abort(), { once: true });

    const server = serverOf(event);
    const deadline = cradle.clock.now() + settings.maxDurationMs;
    const run = async () => {
      let lastWrite = Date.now();
      let opened = false;
      while (!done.signal.aborted) {
        if (server && !server.listening) break;
        if (cradle.clock.now() >= deadline) break;
        for await (const page of feed.poll()) {
          if (done.signal.aborted) break;
          // Awaited: a client that stops reading holds the loop here instead of filling memory.
          await stream.push(page.map((found) => ({ id: found.id, event: found.type, data: found.body })));
          lastWrite = Date.now();
        }
        if (!opened) {
          // The client gets the response headers with the first bytes. Written only after the first
          // read has noted what already existed, so whatever commits once the client sees the stream open is sent.
          await stream.pushComment('stream open');
          opened = true;
          lastWrite = Date.now();
        } else if (Date.now() - lastWrite >= settings.heartbeatMs) {
          await stream.pushComment('heartbeat');
          lastWrite = Date.now();
        }
        await sleep(settings.pollMs, undefined, { signal: done.signal }).catch(() => {});
      }
    };
    run()
      .catch((error: unknown) =>
        requestLogger(event).warn('event stream ended by an error', {
          organizationId: key.organizationId,
          error: String(error),
        }),
      )
      .finally(() => void stream.close());
    return stream;
  });
}
