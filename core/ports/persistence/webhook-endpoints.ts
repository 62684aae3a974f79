import type { WebhookEndpointRecord } from '../../domain/webhook-endpoint.ts';

export interface WebhookEndpointRepository {
  create(endpoint: WebhookEndpointRecord): Promise<void>;
  /** A live (not deleted) endpoint of the organization; inside a transaction `forUpdate` locks it (where the database can) until commit. */
  get(organizationId: string, id: string, options?: { forUpdate?: boolean }): Promise<WebhookEndpointRecord | null>;
  /** Newest first. */
  list(
    organizationId: string,
    options: { limit: number; startingAfter?: string },
  ): Promise<{ data: WebhookEndpointRecord[]; hasMore: boolean }>;
  count(organizationId: string): Promise<number>;
  /** Enabled endpoints of the organization subscribed to the type (or `*`). */
  subscribedTo(organizationId: string, eventType: string): Promise<WebhookEndpointRecord[]>;
  update(endpoint: WebhookEndpointRecord): Promise<void>;
  delete(organizationId: string, id: string, at: number): Promise<boolean>;
  /** Records a failed delivery: starts the failing period unless one is running. */
  markFailing(id: string, at: number): Promise<void>;
  markHealthy(id: string): Promise<void>;
  disable(id: string, reason: string, at: number): Promise<void>;
  /** Disables enabled endpoints failing since before `before`; returns their ids. */
  disableFailingSince(before: number, reason: string, at: number): Promise<string[]>;
}
