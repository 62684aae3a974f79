import type { H3, H3Event } from 'h3';
import { createEndpointSchema, updateEndpointSchema } from '../../domain/webhook-endpoint-input.ts';
import type { WebhookEndpointRecord } from '../../domain/webhook-endpoint.ts';
import { readValidJson, validate } from '../body.ts';
import { requireKey, services } from '../context.ts';
import { isoTime } from '../format.ts';
import { pageQuerySchema, pathId, queryOf } from '../params.ts';
import type { RouteLimits } from '../rate-limit.ts';

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
