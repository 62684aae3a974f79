import { ref } from '../components.ts';
import { examplePhotoDataUri } from '../examples.ts';
import {
  errorResponses,
  jsonBody,
  jsonBodyErrors,
  notFoundErrors,
  ok,
  pageParameters,
  pathParameter,
  queryErrors,
  secretKeyErrors,
  security,
  serverErrors,
} from '../helpers.ts';
import type { Operation, PathFragment, Response } from '../types.ts';

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

const preflight = (operationId: string, path: string, parameters = [widgetId]): Operation => ({
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
      requestBody: jsonBody('CreateWidgetRequest', {
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
      parameters: [
        ...pageParameters,
        {
          name: 'storeId',
          in: 'query',
          description: 'Only widgets of this store.',
          schema: { type: 'string', minLength: 1, maxLength: 64 },
        },
      ],
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
      requestBody: jsonBody('UpdateWidgetRequest', {
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
    options: preflight('preflightWidgetConfig', '/api/widgets/{widgetId}'),
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
    options: preflight('preflightWidgetGenerations', '/api/widgets/{widgetId}/generations'),
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
        content: { 'application/json': { schema: ref('WidgetGenerationRequest'), example: widgetGenerationExample } },
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
    options: preflight('preflightWidgetGeneration', '/api/widgets/{widgetId}/generations/{id}', [
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
        {
          name: 'visitorId',
          in: 'query',
          required: true,
          description: 'The visitor the generation was made for.',
          schema: { type: 'string', minLength: 1, maxLength: 128 },
        },
      ],
      responses: {
        '200': ok('The generation.', 'Generation', cors),
        ...errorResponses(serverErrors, keylessErrors, queryErrors),
      },
    },
  },
};
