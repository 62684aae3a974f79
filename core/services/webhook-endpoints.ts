import type { Cradle } from '../cradle.ts';
import { ApiError, notFound } from '../domain/errors.ts';
import type { CreateEndpointInput, UpdateEndpointInput } from '../domain/webhook-endpoint-input.ts';
import { generateWebhookSecret } from '../domain/webhook-signature.ts';
import type { WebhookEndpointRecord } from '../ports/persistence.ts';

export type WebhookEndpointService = ReturnType<typeof webhookEndpointService>;

/** Registration and management of an organization's webhook endpoints. */
export function webhookEndpointService({ persistence, ids, clock, config }: Pick<Cradle, 'persistence' | 'ids' | 'clock' | 'config'>) {
  async function owned(organizationId: string, id: string) {
    const endpoint = await persistence.webhookEndpoints.get(organizationId, id);
    if (!endpoint) throw notFound('webhook endpoint', id);
    return endpoint;
  }

  return {
    async create(organizationId: string, input: CreateEndpointInput) {
      const limit = config.webhooks.maxEndpointsPerOrganization;
      if ((await persistence.webhookEndpoints.count(organizationId)) >= limit) {
        throw new ApiError('invalid_request_error', 'endpoint_limit_reached', `An organization can have at most ${limit} webhook endpoints; delete one first.`);
      }
      const now = clock.now();
      const endpoint: WebhookEndpointRecord = {
        id: ids.id('whe_'),
        organizationId,
        url: input.url,
        description: input.description ?? null,
        enabledEvents: input.enabledEvents,
        status: 'enabled',
        disabledReason: null,
        secret: generateWebhookSecret(),
        previousSecret: null,
        previousSecretExpiresAt: null,
        failingSince: null,
        createdAt: now,
        updatedAt: now,
      };
      await persistence.webhookEndpoints.create(endpoint);
      return endpoint;
    },

    get: owned,

    list: (organizationId: string, options: { limit: number; startingAfter?: string }) => persistence.webhookEndpoints.list(organizationId, options),

    async update(organizationId: string, id: string, patch: UpdateEndpointInput) {
      const endpoint = await owned(organizationId, id);
      const updated: WebhookEndpointRecord = {
        ...endpoint,
        url: patch.url ?? endpoint.url,
        enabledEvents: patch.enabledEvents ?? endpoint.enabledEvents,
        description: patch.description === undefined ? endpoint.description : patch.description,
        updatedAt: clock.now(),
      };
      if (patch.status === 'enabled' && endpoint.status !== 'enabled') {
        // Re-enabling starts afresh: the failing period that disabled it is over.
        Object.assign(updated, { status: 'enabled', disabledReason: null, failingSince: null });
      } else if (patch.status === 'disabled' && endpoint.status !== 'disabled') {
        Object.assign(updated, { status: 'disabled', disabledReason: 'disabled_by_user' });
      }
      await persistence.webhookEndpoints.update(updated);
      return updated;
    },

    async delete(organizationId: string, id: string) {
      if (!(await persistence.webhookEndpoints.delete(organizationId, id, clock.now()))) throw notFound('webhook endpoint', id);
    },

    /** A new secret, returned once; the old one keeps signing alongside it for the grace period. */
    async rotateSecret(organizationId: string, id: string) {
      const endpoint = await owned(organizationId, id);
      const now = clock.now();
      const rotated: WebhookEndpointRecord = {
        ...endpoint,
        secret: generateWebhookSecret(),
        previousSecret: endpoint.secret,
        previousSecretExpiresAt: now + config.webhooks.secretGracePeriodMs,
        updatedAt: now,
      };
      await persistence.webhookEndpoints.update(rotated);
      return rotated;
    },
  };
}

/** The secrets a delivery is signed with now: the current one, and the previous one during its grace period. */
export function activeSecrets(endpoint: WebhookEndpointRecord, now: number): string[] {
  const previousActive = endpoint.previousSecret && endpoint.previousSecretExpiresAt !== null && endpoint.previousSecretExpiresAt > now;
  return previousActive ? [endpoint.secret, endpoint.previousSecret!] : [endpoint.secret];
}
