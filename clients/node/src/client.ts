import { randomUUID } from 'node:crypto';
import createFetchClient from 'openapi-fetch';
import { errorFromResponse } from './errors.ts';
import { openEventStream, type Connect, type EventStreamOptions } from './event-stream.ts';
import { paginate } from './paginate.ts';
import { retryingFetch, type Fetch } from './retry.ts';
import type { paths } from './schema.ts';
import type {
  CreateGenerationRequest,
  Generation,
  ListItem,
  ListPath,
  ListQuery,
  OrderWebhookRequest,
  Query,
  RequestBody,
  WebhookEvent,
  WebhookEventType,
} from './types.ts';
import { waitForGeneration, type WaitOptions } from './wait.ts';

export interface ClientOptions {
  /** The secret API key (`visualizer_…`) for every `/v1` call. Keep it on your server. */
  apiKey?: string;
  /** The conversion key (`viz_…`) for `conversions.report`; can also be given per call. */
  conversionKey?: string;
  /** The service's public URL, e.g. `https://visualizer.example.com`. */
  baseUrl: string;
  /** A fetch to send requests with (tests, proxies, instrumentation). Default: the global fetch. */
  fetch?: Fetch;
  /** Retries after the first attempt for 429, 503 and lost connections (see docs/client.md). Default 2. */
  maxRetries?: number;
  /** Longest `Retry-After` waited out before a retry; a longer one is returned as the error at once. Default 10 000 ms. */
  maxRetryDelayMs?: number;
  /** How long one attempt may wait for its answer to begin (headers) before it counts as a lost connection. Default 60 000 ms. */
  timeoutMs?: number;
}

export interface CallOptions {
  /** Aborts the request, its retries and the waits between them. */
  signal?: AbortSignal;
}

export interface CreateGenerationOptions extends CallOptions {
  /**
   * One key per logical action (e.g. `order-1234-try-on`): the same key always answers the same
   * generation. Default: a random UUID, which makes this call's own retries safe.
   */
  idempotencyKey?: string;
}

/** The order webhook's body; `platform` defaults to `custom` (the only value) and `orderCreatedAt` may be a Date. */
export type OrderReport = Omit<OrderWebhookRequest, 'platform' | 'orderCreatedAt'> & {
  platform?: OrderWebhookRequest['platform'];
  orderCreatedAt: string | Date;
};

/** `events.stream` and `events.streamMessages`: `types` keeps only those event types. */
export type StreamOptions = EventStreamOptions & { types?: WebhookEventType[] };

export type VisualizerClient = ReturnType<typeof createClient>;

/**
 * A client for the Visualizer API. Every method resolves with the response body, typed from the
 * OpenAPI document, and rejects with a VisualizerError subclass for an error answer or a
 * ConnectionError when the service could not be reached, after the retries described in
 * docs/client.md. `api` is the underlying openapi-fetch client for anything not wrapped here.
 */
export function createClient(options: ClientOptions) {
  const { apiKey, baseUrl } = options;
  if (!baseUrl) throw new TypeError('baseUrl is required, e.g. https://visualizer.example.com');
  if (apiKey === undefined && options.conversionKey === undefined)
    throw new TypeError('Give an apiKey (visualizer_…), a conversionKey (viz_…), or both');
  if (apiKey?.startsWith('viz_'))
    throw new TypeError(
      'apiKey is a conversion key (viz_…): pass it as conversionKey, and the secret visualizer_… key as apiKey',
    );
  const maxRetries = options.maxRetries ?? 2;
  if (!Number.isInteger(maxRetries) || maxRetries < 0)
    throw new RangeError('maxRetries must be a whole number, 0 or more');

  const base = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const send = retryingFetch(base, {
    maxRetries,
    maxRetryDelayMs: options.maxRetryDelayMs ?? 10_000,
    timeoutMs: options.timeoutMs ?? 60_000,
  });
  const api = createFetchClient<paths>({
    baseUrl: baseUrl.replace(/\/+$/, ''),
    fetch: (request) => send(request),
    headers: apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` },
  });

  const generations = {
    /** Starts a generation (202, `status: processing`) or, for a key used before, answers its generation. */
    create: (body: CreateGenerationRequest, { idempotencyKey = randomUUID(), signal }: CreateGenerationOptions = {}) =>
      unwrap(api.POST('/v1/generations', { body, params: { header: { 'Idempotency-Key': idempotencyKey } }, signal })),
    retrieve: (id: string, { signal }: CallOptions = {}) =>
      unwrap(api.GET('/v1/generations/{id}', { params: { path: { id } }, signal })),
    /**
     * Deletes the generation with its original, every variant and the uploaded photo (a `processing`
     * one is discarded and refunded). Deleting it again answers the same, so this call is retried
     * like an idempotent one.
     */
    delete: (id: string, { signal }: CallOptions = {}) =>
      unwrap(
        api.DELETE('/v1/generations/{id}', {
          params: { path: { id } },
          fetch: (request: Request) => send(request, { replaySafe: true }),
          signal,
        }),
      ),
    /** One page, newest first; `paginate('/v1/generations')` walks them all. */
    list: (query: Query<'listGenerations'> = {}, { signal }: CallOptions = {}) =>
      unwrap(api.GET('/v1/generations', { params: { query }, signal })),
    /** Polls until the generation is `complete` (resolves) or `failed` (GenerationFailedError), within a timeout (GenerationTimeoutError). */
    wait: (generation: string | Generation, waitOptions: WaitOptions = {}) =>
      waitForGeneration((id, signal) => generations.retrieve(id, { signal }), generation, waitOptions),
  };

  /** One connection of an event stream, resuming after `lastEventId` when given. */
  const connectEvents =
    (types: WebhookEventType[] | undefined): Connect =>
    async (lastEventId, signal) => {
      const query = types === undefined ? {} : { types };
      const header = lastEventId === undefined ? {} : { 'Last-Event-ID': lastEventId };
      // The document says `style: form, explode: false`: one comma-separated value.
      const querySerializer = { array: { style: 'form', explode: false } } as const;
      const body = await unwrap(
        api.GET('/v1/events/stream', { params: { query, header }, querySerializer, parseAs: 'stream', signal }),
      );
      return body as ReadableStream<Uint8Array>;
    };

  return {
    generations,
    organization: {
      retrieve: ({ signal }: CallOptions = {}) => unwrap(api.GET('/v1/organization', { signal })),
      /** `renderRetentionDays`: days to keep each render, or null for ever. */
      update: (body: RequestBody<'updateOrganization'>, { signal }: CallOptions = {}) =>
        unwrap(api.PATCH('/v1/organization', { body, signal })),
    },
    credits: {
      retrieve: ({ signal }: CallOptions = {}) => unwrap(api.GET('/v1/credits', { signal })),
      listLedger: (query: Query<'listCreditLedgerEntries'> = {}, { signal }: CallOptions = {}) =>
        unwrap(api.GET('/v1/credits/ledger', { params: { query }, signal })),
    },
    webhookEndpoints: {
      /** Its `secret` (`whsec_…`) is in this answer only: store it for `verifyWebhook`. */
      create: (body: RequestBody<'createWebhookEndpoint'>, { signal }: CallOptions = {}) =>
        unwrap(api.POST('/v1/webhook-endpoints', { body, signal })),
      list: (query: Query<'listWebhookEndpoints'> = {}, { signal }: CallOptions = {}) =>
        unwrap(api.GET('/v1/webhook-endpoints', { params: { query }, signal })),
      retrieve: (id: string, { signal }: CallOptions = {}) =>
        unwrap(api.GET('/v1/webhook-endpoints/{id}', { params: { path: { id } }, signal })),
      update: (id: string, body: RequestBody<'updateWebhookEndpoint'>, { signal }: CallOptions = {}) =>
        unwrap(api.PATCH('/v1/webhook-endpoints/{id}', { params: { path: { id } }, body, signal })),
      delete: (id: string, { signal }: CallOptions = {}) =>
        unwrap(api.DELETE('/v1/webhook-endpoints/{id}', { params: { path: { id } }, signal })),
      rotateSecret: (id: string, { signal }: CallOptions = {}) =>
        unwrap(api.POST('/v1/webhook-endpoints/{id}/rotate-secret', { params: { path: { id } }, signal })),
    },
    events: {
      list: (query: Query<'listEvents'> = {}, { signal }: CallOptions = {}) =>
        unwrap(api.GET('/v1/events', { params: { query }, signal })),
      retrieve: (id: string, { signal }: CallOptions = {}) =>
        unwrap(api.GET('/v1/events/{id}', { params: { path: { id } }, signal })),
      listAttempts: (id: string, { signal }: CallOptions = {}) =>
        unwrap(api.GET('/v1/events/{id}/attempts', { params: { path: { id } }, signal })),
      resend: (id: string, body: RequestBody<'resendEvent'> = {}, { signal }: CallOptions = {}) =>
        unwrap(api.POST('/v1/events/{id}/resend', { params: { path: { id } }, body, signal })),
      /**
       * The organization's events as they happen (Server-Sent Events), for development: a local
       * server receives them without an https endpoint. Production receivers use webhook endpoints.
       */
      stream: ({ types, ...streamOptions }: StreamOptions = {}) =>
        openEventStream(connectEvents(types), streamOptions, (message) => JSON.parse(message.data) as WebhookEvent),
      /** The same stream as `stream`, each event as its message: `data` is the event's JSON byte for byte, e.g. to sign it again. */
      streamMessages: ({ types, ...streamOptions }: StreamOptions = {}) =>
        openEventStream(connectEvents(types), streamOptions, (message) => message),
    },
    conversions: {
      list: (query: Query<'listConversions'> = {}, { signal }: CallOptions = {}) =>
        unwrap(api.GET('/v1/conversions', { params: { query }, signal })),
      /**
       * Reports an order through the order webhook with the conversion key. Reporting the same
       * order again is how its status is updated, and a repeat of the same report changes
       * nothing, so this call is retried like an idempotent one.
       */
      report: (
        order: OrderReport,
        { conversionKey = options.conversionKey, signal }: CallOptions & { conversionKey?: string } = {},
      ) => {
        if (!conversionKey)
          return Promise.reject(
            new TypeError(
              'conversions.report needs the conversion key (viz_…): createClient({ conversionKey }) or report(order, { conversionKey })',
            ),
          );
        const body = {
          platform: 'custom' as const,
          ...order,
          orderCreatedAt:
            order.orderCreatedAt instanceof Date ? order.orderCreatedAt.toISOString() : order.orderCreatedAt,
        };
        return unwrap(
          api.POST('/api/webhooks/orders', {
            body,
            headers: { authorization: `Bearer ${conversionKey}` },
            fetch: (request: Request) => send(request, { replaySafe: true }),
            signal,
          }),
        );
      },
    },
    analytics: {
      summary: (query: Query<'getAnalyticsSummary'>, { signal }: CallOptions = {}) =>
        unwrap(api.GET('/v1/analytics/summary', { params: { query }, signal })),
      daily: (query: Query<'getAnalyticsDaily'> = {}, { signal }: CallOptions = {}) =>
        unwrap(api.GET('/v1/analytics/daily', { params: { query }, signal })),
    },
    stores: {
      list: (query: Query<'listStores'> = {}, { signal }: CallOptions = {}) =>
        unwrap(api.GET('/v1/stores', { params: { query }, signal })),
      create: (body: RequestBody<'createStore'>, { signal }: CallOptions = {}) =>
        unwrap(api.POST('/v1/stores', { body, signal })),
    },
    widgets: {
      create: (body: RequestBody<'createWidget'>, { signal }: CallOptions = {}) =>
        unwrap(api.POST('/v1/widgets', { body, signal })),
      list: (query: Query<'listWidgets'> = {}, { signal }: CallOptions = {}) =>
        unwrap(api.GET('/v1/widgets', { params: { query }, signal })),
      retrieve: (id: string, { signal }: CallOptions = {}) =>
        unwrap(api.GET('/v1/widgets/{id}', { params: { path: { id } }, signal })),
      update: (id: string, body: RequestBody<'updateWidget'>, { signal }: CallOptions = {}) =>
        unwrap(api.PATCH('/v1/widgets/{id}', { params: { path: { id } }, body, signal })),
    },
    /**
     * A widget visitor's data, for GDPR requests: `retrieve` answers an access request (at most 100
     * of each kind, with totals), the `list…` methods page through all of one kind (`has_more`,
     * `starting_after`: an identity's `storeId`, else the last id), `erase` starts an erasure and
     * answers it `pending`: wait for it with `visitorErasures.retrieve`. Asking again while it is
     * pending answers the same erasure, so `erase` is retried like an idempotent call.
     */
    visitors: {
      retrieve: (visitorId: string, { signal }: CallOptions = {}) =>
        unwrap(api.GET('/v1/visitors/{visitorId}', { params: { path: { visitorId } }, signal })),
      listGenerations: (visitorId: string, query: Query<'listVisitorGenerations'> = {}, { signal }: CallOptions = {}) =>
        unwrap(api.GET('/v1/visitors/{visitorId}/generations', { params: { path: { visitorId }, query }, signal })),
      listIdentities: (visitorId: string, query: Query<'listVisitorIdentities'> = {}, { signal }: CallOptions = {}) =>
        unwrap(api.GET('/v1/visitors/{visitorId}/identities', { params: { path: { visitorId }, query }, signal })),
      listConversions: (visitorId: string, query: Query<'listVisitorConversions'> = {}, { signal }: CallOptions = {}) =>
        unwrap(api.GET('/v1/visitors/{visitorId}/conversions', { params: { path: { visitorId }, query }, signal })),
      erase: (visitorId: string, { signal }: CallOptions = {}) =>
        unwrap(
          api.DELETE('/v1/visitors/{visitorId}', {
            params: { path: { visitorId } },
            fetch: (request: Request) => send(request, { replaySafe: true }),
            signal,
          }),
        ),
    },
    /** Erasures and what each erased (never the visitor's ids): the audit trail of erasure requests. */
    visitorErasures: {
      list: (query: Query<'listVisitorErasures'> = {}, { signal }: CallOptions = {}) =>
        unwrap(api.GET('/v1/visitor-erasures', { params: { query }, signal })),
      retrieve: (id: string, { signal }: CallOptions = {}) =>
        unwrap(api.GET('/v1/visitor-erasures/{id}', { params: { path: { id } }, signal })),
    },
    /**
     * Every item of a list, across pages: `for await (const g of client.paginate('/v1/generations', { status: 'complete' }))`.
     * `limit` sets the page size (1–100), not how many items are yielded.
     */
    paginate: <Path extends ListPath>(
      path: Path,
      query?: ListQuery<Path>,
      { signal }: CallOptions = {},
    ): AsyncGenerator<ListItem<Path>, void, undefined> => {
      // openapi-fetch cannot relate a generic path to its parameters; ListPath guarantees the shape.
      const get = api.GET as unknown as (
        path: string,
        init: object,
      ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
      return paginate(
        (startingAfter) =>
          unwrap(
            get(path, {
              params: {
                query: { ...query, ...(startingAfter === undefined ? {} : { starting_after: startingAfter }) },
              },
              signal,
            }),
          ) as Promise<{
            data: Array<ListItem<Path> & { id: string }>;
            has_more: boolean;
          }>,
      );
    },
    /** The openapi-fetch client underneath, with the same key, base URL and retries; it answers `{ data, error, response }` instead of throwing. */
    api,
  };
}

/** The body of a 2xx answer, or the typed error for any other. */
async function unwrap<Result extends { data?: unknown; error?: unknown; response: Response }>(
  call: Promise<Result>,
): Promise<Exclude<Result['data'], undefined>> {
  const { data, error, response } = await call;
  if (!response.ok) throw errorFromResponse(response, error);
  return data as Exclude<Result['data'], undefined>;
}
