import type { Ports } from '../ports/index.ts';
import type { Config } from '../../config/schema.ts';
import type { Logger } from '../logger.ts';
import { ApiError, notFound } from '../domain/errors.ts';
import type { CreateEndpointInput, UpdateEndpointInput } from '../domain/webhook-endpoint-input.ts';
import { rotateSecrets } from '../domain/webhook-secrets.ts';
import { generateWebhookSecret } from '../domain/webhook-signature.ts';
import type { WebhookEndpointRecord } from '../domain/webhook-endpoint.ts';

export type WebhookEndpointService = ReturnType<typeof webhookEndpointService>;

/** Registration and management of an organization's webhook endpoints. */
export function webhookEndpointService({
  persistence,
  ids,
  clock,
  config,
}: Pick<Ports, 'persistence' | 'ids' | 'clock'> & { config: Config }) {
  async function owned(organizationId: string, id: string) {
    const endpoint = await persistence.webhookEndpoints.get(organizationId, id);
    if (!endpoint) throw notFound('webhook endpoint', id);
    return endpoint;
  }

  /**
   * Reads the endpoint with its row locked, derives its new state and writes it in one transaction:
   * a write carries the whole row, so a PATCH racing a rotation must not put back the secrets the
   * rotation replaced, nor two rotations keep only one of theirs.
   */
  function change(
    organizationId: string,
    id: string,
    next: (endpoint: WebhookEndpointRecord, now: number) => WebhookEndpointRecord,
  ) {
    return persistence.transaction(async (tx) => {
      const endpoint = await tx.webhookEndpoints.get(organizationId, id, { forUpdate: true });
      if (!endpoint) throw notFound('webhook endpoint', id);
      const changed = next(endpoint, clock.now());
      await tx.webhookEndpoints.update(changed);
      return changed;
    });
  }

  return {
    async create(organizationId: string, input: CreateEndpointInput) {
      const limit = config.webhooks.maxEndpointsPerOrganization;
      if ((await persistence.webhookEndpoints.count(organizationId)) >= limit) {
        throw new ApiError(
          'invalid_request_error',
          'endpoint_limit_reached',
          `An organization can have at most ${limit} webhook endpoints; delete one first.`,
        );
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
        previousSecrets: [],
        failingSince: null,
        createdAt: now,
        updatedAt: now,
      };
      await persistence.webhookEndpoints.create(endpoint);
      return endpoint;
    },

    get: owned,

    list: (organizationId: string, options: { limit: number; startingAfter?: string }) =>
      persistence.webhookEndpoints.list(organizationId, options),

    update(organizationId: string, id: string, patch: UpdateEndpointInput) {
      return change(organizationId, id, (endpoint, now) => {
        const updated: WebhookEndpointRecord = {
          ...endpoint,
          url: patch.url ?? endpoint.url,
          enabledEvents: patch.enabledEvents ?? endpoint.enabledEvents,
          description: patch.description === undefined ? endpoint.description : patch.description,
          updatedAt: now,
        };
        if (patch.status === 'enabled' && endpoint.status !== 'enabled') {
          // Re-enabling starts afresh: the failing period that disabled it is over.
          Object.assign(updated, { status: 'enabled', disabledReason: null, failingSince: null });
        } else if (patch.status === 'disabled' && endpoint.status !== 'disabled') {
          Object.assign(updated, { status: 'disabled', disabledReason: 'disabled_by_user' });
        }
        return updated;
      });
    },

    async delete(organizationId: string, id: string) {
      if (!(await persistence.webhookEndpoints.delete(organizationId, id, clock.now())))
        throw notFound('webhook endpoint', id);
    },

    /** A new secret, returned once; the replaced one keeps signing for the grace period, beside any earlier ones still in theirs. */
    async rotateSecret(organizationId: string, id: string) {
      const graceMs = config.webhooks.secretGracePeriodMs;
      const endpoint = await change(organizationId, id, (current, now) => ({
        ...current,
        ...rotateSecrets(current, generateWebhookSecret(), now, graceMs),
        updatedAt: now,
      }));
      return { endpoint, previousSecretExpiresAt: endpoint.updatedAt + graceMs };
    },
  };
}

/** Disables every endpoint whose deliveries all failed for longer than `webhooks.disableAfterFailingMs`. */
export function disableFailingEndpoints({
  persistence,
  clock,
  config,
  logger,
}: Pick<Ports, 'persistence' | 'clock'> & { config: Config; logger: Logger }) {
  return async function disableFailing(): Promise<void> {
    const now = clock.now();
    const disabled = await persistence.webhookEndpoints.disableFailingSince(
      now - config.webhooks.disableAfterFailingMs,
      'failing',
      now,
    );
    for (const endpointId of disabled)
      logger.warn('webhook endpoint disabled: every delivery failed for too long', { endpointId });
  };
}
