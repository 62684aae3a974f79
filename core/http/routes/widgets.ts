import type { H3, H3Event } from 'h3';
import * as v from 'valibot';
import type { Config } from '../../../config/schema.ts';
import { browserId } from '../../domain/conversion-input.ts';
import { generationResource } from '../../domain/generation.ts';
import { maxImageBytes } from '../../domain/generation-input.ts';
import { createWidgetSchema, updateWidgetSchema, widgetGenerationSchema } from '../../domain/widget-input.ts';
import { ApiError } from '../../domain/errors.ts';
import { utcDate, type WidgetRecord } from '../../domain/widget.ts';
import type { WidgetWithUsage } from '../../services/widgets.ts';
import { readValidJson, validate } from '../body.ts';
import { allowWidgetOrigin, clientAddress, preflight, setAlways } from '../browser-access.ts';
import { httpAnswerOf } from '../error-status.ts';
import { readJsonWithPhoto } from '../photo-body.ts';
import { requireKey, services } from '../context.ts';
import { isoTime } from '../format.ts';
import { pageQuerySchema, pathId, queryOf } from '../params.ts';
import type { RouteLimits } from '../rate-limit.ts';
import { requestSchema } from '../openapi/request-schemas.ts';
import { examplePhotoDataUri } from '../openapi/examples.ts';
import {
  errorResponses,
  jsonBody,
  jsonBodyErrors,
  notFoundErrors,
  ok,
  pageNotes,
  pathParameter,
  queryErrors,
  secretKeyErrors,
  security,
  serverErrors,
} from '../openapi/helpers.ts';
import { queryParameters } from '../openapi/query-parameters.ts';
import type { Operation, PathFragment, Response } from '../openapi/types.ts';

/** As for POST /v1/generations: a 10 MB photo as base64 plus a small rest. */
const generationBodyLimit = Math.ceil((maxImageBytes * 4) / 3) + 512 * 1024;
/** All of a shopper's generation but the photo: ids, three products and a hint need a few KB. */
export const widgetBodyLimitBesidesPhoto = 64 * 1024;

export const widgetResource = (widget: WidgetWithUsage) => ({
  id: widget.id,
  object: 'widget' as const,
  storeId: widget.storeId,
  mode: widget.mode,
  imageSize: widget.imageSize,
  allowedOrigins: widget.allowedOrigins,
  dailyGenerationCap: widget.dailyGenerationCap,
  dailyCreditCap: widget.dailyCreditCap,
  usageToday: {
    date: utcDate(widget.usageToday.day),
    generations: widget.usageToday.generations,
    credits: widget.usageToday.credits,
  },
  createdAt: isoTime(widget.createdAt),
});

/** What a shopper's page may know of a widget. */
const publicWidgetResource = (widget: WidgetRecord) => ({
  id: widget.id,
  object: 'widget' as const,
  mode: widget.mode,
  imageSize: widget.imageSize,
});

const listQuery = v.object({
  ...pageQuerySchema.entries,
  storeId: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
});
const visitorQuery = v.object({ visitorId: browserId });

const widgetId = pathParameter('widgetId', 'The widget id (`wdg_…`).');
const generationId = pathParameter('id', 'The generation id (`agen_…`).');

const cors: Response['headers'] = {
  'access-control-allow-origin': {
    description: "The calling page's origin when the widget allows it (`*` on a 404).",
    schema: { type: 'string' },
  },
  vary: { schema: { type: 'string' } },
};

/** Unknown widget (404), a page not on its allowed origins (403), too many calls from one address (429). */
const keylessErrors = { 403: ['origin_not_allowed'], 404: ['resource_missing'], 429: ['rate_limited'] };

const preflightOperation = (operationId: string, path: string, parameters = [widgetId]): Operation => ({
  operationId,
  summary: `CORS preflight of ${path}`,
  tags: ['Browser'],
  security: security.none,
  parameters,
  responses: {
    '204': { description: "The widget's allowed origin may call it.", headers: cors },
    ...errorResponses(serverErrors, { 403: ['origin_not_allowed'], 404: ['resource_missing'] }),
  },
});

const widgetGenerationExample = {
  visitorId: 'v_9f8e7d6c',
  sessionId: 's_1a2b3c4d',
  image: examplePhotoDataUri,
  products: [
    {
      productId: 'sku-1042',
      productTitle: 'Linen shirt, sky blue',
      imageUrl: 'https://shop.example/images/sku-1042.jpg',
    },
  ],
  hint: null,
};

export const widgetPaths: PathFragment = {
  '/v1/widgets': {
    post: {
      operationId: 'createWidget',
      summary: 'Create a widget',
      description:
        "An embeddable widget of one store: shoppers' pages on `allowedOrigins` may make up to `dailyGenerationCap` generations (default 500) a day (UTC) without a key, spending at most `dailyCreditCap` credits a day (default null: no cap; at least one generation's cost at the widget's `imageSize`, else 400 `parameter_invalid`). Both caps are counted in the transaction that charges a generation, so they hold across every process; a failed generation's refunded credits are not spent.",
      tags: ['Widgets'],
      requestBody: jsonBody('CreateWidgetRequest', createWidgetSchema, {
        storeId: 'store_2aXbQ4mR7kP9sT1vW3yZ5cD8',
        mode: 'virtual-try-on',
        imageSize: '1K',
        allowedOrigins: ['https://shop.example'],
        dailyGenerationCap: 500,
        dailyCreditCap: 200,
      }),
      responses: {
        '201': ok('The new widget.', 'Widget'),
        ...errorResponses(serverErrors, secretKeyErrors, jsonBodyErrors, notFoundErrors),
      },
    },
    get: {
      operationId: 'listWidgets',
      summary: 'List widgets',
      description: 'Newest first.',
      tags: ['Widgets'],
      parameters: queryParameters(listQuery, { ...pageNotes, storeId: { description: 'Only widgets of this store.' } }),
      responses: {
        '200': ok('A page of widgets.', 'WidgetList'),
        ...errorResponses(serverErrors, secretKeyErrors, queryErrors, notFoundErrors),
      },
    },
  },
  '/v1/widgets/{id}': {
    get: {
      operationId: 'getWidget',
      summary: 'Get a widget',
      tags: ['Widgets'],
      parameters: [pathParameter('id', 'The widget id (`wdg_…`).')],
      responses: {
        '200': ok('The widget.', 'Widget'),
        ...errorResponses(serverErrors, secretKeyErrors, notFoundErrors),
      },
    },
    patch: {
      operationId: 'updateWidget',
      summary: 'Update a widget',
      description:
        "Changes the fields sent; the others keep their values. Pages see the change on their next call. `dailyCreditCap: null` removes the credit cap; a cap below one generation's cost at the widget's (new) `imageSize` is 400 `parameter_invalid`. A new cap applies to today's use as already counted.",
      tags: ['Widgets'],
      parameters: [pathParameter('id', 'The widget id (`wdg_…`).')],
      requestBody: jsonBody('UpdateWidgetRequest', updateWidgetSchema, {
        allowedOrigins: ['https://shop.example', 'https://www.shop.example'],
        dailyGenerationCap: 1000,
        dailyCreditCap: 500,
      }),
      responses: {
        '200': ok('The widget.', 'Widget'),
        ...errorResponses(serverErrors, secretKeyErrors, jsonBodyErrors, notFoundErrors),
      },
    },
  },
  '/api/widgets/{widgetId}': {
    options: preflightOperation('preflightWidgetConfig', '/api/widgets/{widgetId}'),
    get: {
      operationId: 'getWidgetConfig',
      summary: "A widget's public configuration (keyless)",
      description:
        "What the widget's script needs to know: its mode and image size. Called from pages on the widget's allowed origins.",
      tags: ['Browser'],
      security: security.none,
      parameters: [widgetId],
      responses: {
        '200': ok('The public widget.', 'PublicWidget', cors),
        ...errorResponses(serverErrors, keylessErrors),
      },
    },
  },
  '/api/widgets/{widgetId}/generations': {
    options: preflightOperation('preflightWidgetGenerations', '/api/widgets/{widgetId}/generations'),
    post: {
      operationId: 'createWidgetGeneration',
      summary: "Create a shopper's generation (keyless)",
      description:
        "Mode and size come from the widget; credits from the widget's organization. Within the widget's daily caps, counted per UTC day: 429 `daily_cap_reached` past `dailyGenerationCap`, 429 `daily_credit_cap_reached` when the generation's credits would pass `dailyCreditCap`; both with `Retry-After` until midnight UTC.",
      tags: ['Browser'],
      security: security.none,
      parameters: [widgetId],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: requestSchema('WidgetGenerationRequest', widgetGenerationSchema),
            example: widgetGenerationExample,
          },
        },
      },
      responses: {
        '202': ok('Accepted: rendering has started.', 'Generation', cors),
        ...errorResponses(serverErrors, keylessErrors, jsonBodyErrors, {
          400: ['image_too_large', 'invalid_image'],
          403: ['insufficient_credits'],
          429: ['daily_cap_reached', 'daily_credit_cap_reached'],
          503: ['storage_unavailable'],
        }),
      },
    },
  },
  '/api/widgets/{widgetId}/generations/{id}': {
    options: preflightOperation('preflightWidgetGeneration', '/api/widgets/{widgetId}/generations/{id}', [
      widgetId,
      generationId,
    ]),
    get: {
      operationId: 'getWidgetGeneration',
      summary: "Get a shopper's generation (keyless)",
      description: 'Only for the visitor it was made for.',
      tags: ['Browser'],
      security: security.none,
      parameters: [
        widgetId,
        generationId,
        ...queryParameters(visitorQuery, { visitorId: { description: 'The visitor the generation was made for.' } }),
      ],
      responses: {
        '200': ok('The generation.', 'Generation', cors),
        ...errorResponses(serverErrors, keylessErrors, queryErrors),
      },
    },
  },
};

export function widgetRoutes(app: H3, limits: RouteLimits, config: Config) {
  app.post('/v1/widgets', async (event) => {
    const key = await requireKey(event, 'secret');
    await limits.read.take(key.id);
    const widget = await services(event).widgets.create(
      key.organizationId,
      await readValidJson(event, createWidgetSchema),
    );
    event.res.status = 201;
    return widgetResource(widget);
  });

  app.get('/v1/widgets', async (event) => {
    const key = await requireKey(event, 'secret');
    await limits.read.take(key.id);
    const query = validate(listQuery, queryOf(event));
    const page = await services(event).widgets.list(key.organizationId, {
      storeId: query.storeId,
      limit: Number(query.limit),
      startingAfter: query.starting_after,
    });
    return { object: 'list', data: page.data.map(widgetResource), has_more: page.hasMore };
  });

  app.get('/v1/widgets/:id', async (event) => {
    const key = await requireKey(event, 'secret');
    await limits.read.take(key.id);
    return widgetResource(await services(event).widgets.get(key.organizationId, pathId(event, 'id', 'widget')));
  });

  app.patch('/v1/widgets/:id', async (event) => {
    const key = await requireKey(event, 'secret');
    await limits.read.take(key.id);
    const id = pathId(event, 'id', 'widget');
    return widgetResource(
      await services(event).widgets.update(key.organizationId, id, await readValidJson(event, updateWidgetSchema)),
    );
  });

  // Keyless endpoints the widget calls from shoppers' browsers, on the widget's allowed origins only.

  /** The widget, with CORS answered for its origins. Unknown widgets are 404 to any page. */
  const widgetFor = async (event: H3Event) => {
    setAlways(event, 'vary', 'Origin');
    try {
      const widget = await services(event).widgets.findPublic(pathId(event, 'widgetId', 'widget'));
      allowWidgetOrigin(event, widget);
      return widget;
    } catch (error) {
      if (error instanceof ApiError && httpAnswerOf(error).status === 404)
        setAlways(event, 'access-control-allow-origin', '*');
      throw error;
    }
  };

  for (const path of [
    '/api/widgets/:widgetId',
    '/api/widgets/:widgetId/generations',
    '/api/widgets/:widgetId/generations/:id',
  ]) {
    app.options(path, async (event) => {
      await widgetFor(event);
      return preflight(event, 'GET, POST', 600);
    });
  }

  app.get('/api/widgets/:widgetId', async (event) => {
    const widget = await widgetFor(event);
    await limits.widgetReadsPerIp.take(clientAddress(event, config.trustProxy));
    return publicWidgetResource(widget);
  });

  app.post('/api/widgets/:widgetId/generations', async (event) => {
    const widget = await widgetFor(event);
    await limits.widgetGenerationsPerIp.take(clientAddress(event, config.trustProxy));
    const input = validate(
      widgetGenerationSchema,
      await readJsonWithPhoto(event, { limit: generationBodyLimit, restLimit: widgetBodyLimitBesidesPhoto }),
    );
    await limits.widgetGenerationsPerVisitor.take(`${widget.id}:${input.visitorId}`);
    const generation = await services(event).widgets.createGeneration(widget, input);
    event.res.status = 202;
    return generationResource(generation);
  });

  app.get('/api/widgets/:widgetId/generations/:id', async (event) => {
    const widget = await widgetFor(event);
    await limits.widgetReadsPerIp.take(clientAddress(event, config.trustProxy));
    const { visitorId } = validate(visitorQuery, queryOf(event));
    return generationResource(
      await services(event).widgets.getGeneration(widget, visitorId, pathId(event, 'id', 'generation')),
    );
  });
}
