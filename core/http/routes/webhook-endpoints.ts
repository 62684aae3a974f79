import type { H3, H3Event } from 'h3';
import { createEndpointSchema, updateEndpointSchema } from '../../domain/webhook-endpoint-input.ts';
import type { WebhookEndpointRecord } from '../../domain/webhook-endpoint.ts';
import { readValidJson, validate } from '../body.ts';
import { requireKey, services } from '../context.ts';
import { isoTime } from '../format.ts';
import { pageQuerySchema, pathId, queryOf } from '../params.ts';
import type { RouteLimits } from '../rate-limit.ts';
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
  serverErrors,
} from '../openapi/helpers.ts';
import type { PathFragment } from '../openapi/types.ts';

/** The endpoint as the API shows it; the secret only where it has just been made. */
export function endpointResource(endpoint: WebhookEndpointRecord, options: { withSecret?: boolean } = {}) {
  return {
    id: endpoint.id,
    object: 'webhook_endpoint' as const,
    url: endpoint.url,
    description: endpoint.description,
    enabledEvents: endpoint.enabledEvents,
    status: endpoint.status,
    disabledReason: endpoint.disabledReason,
    createdAt: isoTime(endpoint.createdAt),
    updatedAt: isoTime(endpoint.updatedAt),
    ...(options.withSecret ? { secret: endpoint.secret } : {}),
  };
}

const idParam = (event: H3Event) => pathId(event, 'id', 'webhook endpoint');

const tags = ['Webhook endpoints'];
const endpointId = pathParameter('id', 'The webhook endpoint id (`whe_…`).');

export const webhookEndpointPaths: PathFragment = {
  '/v1/webhook-endpoints': {
    post: {
      operationId: 'createWebhookEndpoint',
      summary: 'Create a webhook endpoint',
      description:
        'Events are signed with the returned `secret` (Standard Webhooks); it is shown only here and on rotation.',
      tags,
      requestBody: jsonBody('CreateWebhookEndpointRequest', createEndpointSchema, {
        url: 'https://shop.example/hooks/visualizer',
        enabledEvents: ['generation.completed', 'generation.failed'],
        description: 'Production',
      }),
      responses: {
        '201': ok('The new endpoint, with its signing secret.', 'WebhookEndpointWithSecret'),
        ...errorResponses(serverErrors, secretKeyErrors, jsonBodyErrors, { 400: ['endpoint_limit_reached'] }),
      },
    },
    get: {
      operationId: 'listWebhookEndpoints',
      summary: 'List webhook endpoints',
      description: 'Newest first.',
      tags,
      parameters: pageParameters,
      responses: {
        '200': ok('A page of endpoints.', 'WebhookEndpointList'),
        ...errorResponses(serverErrors, secretKeyErrors, queryErrors),
      },
    },
  },
  '/v1/webhook-endpoints/{id}': {
    get: {
      operationId: 'getWebhookEndpoint',
      summary: 'Get a webhook endpoint',
      tags,
      parameters: [endpointId],
      responses: {
        '200': ok('The endpoint (without its secret).', 'WebhookEndpoint'),
        ...errorResponses(serverErrors, secretKeyErrors, notFoundErrors),
      },
    },
    patch: {
      operationId: 'updateWebhookEndpoint',
      summary: 'Update a webhook endpoint',
      description:
        'Changes any of `url`, `enabledEvents`, `description`, `status`; enabling a disabled endpoint clears `disabledReason`.',
      tags,
      parameters: [endpointId],
      requestBody: jsonBody('UpdateWebhookEndpointRequest', updateEndpointSchema, { status: 'enabled' }),
      responses: {
        '200': ok('The updated endpoint.', 'WebhookEndpoint'),
        ...errorResponses(serverErrors, secretKeyErrors, notFoundErrors, jsonBodyErrors),
      },
    },
    delete: {
      operationId: 'deleteWebhookEndpoint',
      summary: 'Delete a webhook endpoint',
      description: 'Pending deliveries to it are dropped.',
      tags,
      parameters: [endpointId],
      responses: {
        '200': ok('Deleted.', 'DeletedWebhookEndpoint'),
        ...errorResponses(serverErrors, secretKeyErrors, notFoundErrors),
      },
    },
  },
  '/v1/webhook-endpoints/{id}/rotate-secret': {
    post: {
      operationId: 'rotateWebhookEndpointSecret',
      summary: "Rotate a webhook endpoint's secret",
      description:
        'Makes a new secret; for 24 hours deliveries carry signatures of both, so you can deploy the new one without losing events.',
      tags,
      parameters: [endpointId],
      responses: {
        '200': ok('The endpoint with its new secret.', 'RotatedWebhookEndpoint'),
        ...errorResponses(serverErrors, secretKeyErrors, notFoundErrors),
      },
    },
  },
};

export function webhookEndpointRoutes(app: H3, limits: RouteLimits) {
  const authorized = async (event: H3Event) => {
    const key = await requireKey(event, 'secret');
    await limits.read.take(key.id);
    return { organizationId: key.organizationId, endpoints: services(event).webhookEndpoints };
  };

  app.post('/v1/webhook-endpoints', async (event) => {
    const { organizationId, endpoints } = await authorized(event);
    const endpoint = await endpoints.create(organizationId, await readValidJson(event, createEndpointSchema));
    event.res.status = 201;
    return endpointResource(endpoint, { withSecret: true });
  });

  app.get('/v1/webhook-endpoints', async (event) => {
    const { organizationId, endpoints } = await authorized(event);
    const query = validate(pageQuerySchema, queryOf(event));
    const page = await endpoints.list(organizationId, {
      limit: Number(query.limit),
      startingAfter: query.starting_after,
    });
    return { object: 'list', data: page.data.map((endpoint) => endpointResource(endpoint)), has_more: page.hasMore };
  });

  app.get('/v1/webhook-endpoints/:id', async (event) => {
    const { organizationId, endpoints } = await authorized(event);
    return endpointResource(await endpoints.get(organizationId, idParam(event)));
  });

  app.patch('/v1/webhook-endpoints/:id', async (event) => {
    const { organizationId, endpoints } = await authorized(event);
    const id = idParam(event);
    return endpointResource(
      await endpoints.update(organizationId, id, await readValidJson(event, updateEndpointSchema)),
    );
  });

  app.delete('/v1/webhook-endpoints/:id', async (event) => {
    const { organizationId, endpoints } = await authorized(event);
    const id = idParam(event);
    await endpoints.delete(organizationId, id);
    return { id, object: 'webhook_endpoint', deleted: true };
  });

  app.post('/v1/webhook-endpoints/:id/rotate-secret', async (event) => {
    const { organizationId, endpoints } = await authorized(event);
    const rotated = await endpoints.rotateSecret(organizationId, idParam(event));
    return {
      ...endpointResource(rotated.endpoint, { withSecret: true }),
      previousSecretExpiresAt: isoTime(rotated.previousSecretExpiresAt),
    };
  });
}
