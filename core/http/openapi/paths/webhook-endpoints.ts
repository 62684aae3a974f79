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
} from '../helpers.ts';
import type { PathFragment } from '../types.ts';

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
      requestBody: jsonBody('CreateWebhookEndpointRequest', {
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
      requestBody: jsonBody('UpdateWebhookEndpointRequest', { status: 'enabled' }),
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
