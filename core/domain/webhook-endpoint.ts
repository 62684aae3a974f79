import type { PreviousSecret } from './webhook-secrets.ts';

export const endpointStatuses = ['enabled', 'disabled'] as const;
export type EndpointStatus = (typeof endpointStatuses)[number];

export interface WebhookEndpointRecord {
  id: string;
  organizationId: string;
  url: string;
  description: string | null;
  /** Event type names, or `['*']` for all. */
  enabledEvents: string[];
  status: EndpointStatus;
  disabledReason: string | null;
  secret: string;
  /** Secrets replaced by rotations, newest first, each still signing until its own `expiresAt` (see webhook-secrets.ts). */
  previousSecrets: PreviousSecret[];
  /** When its deliveries started failing without a success since; null while healthy. */
  failingSince: number | null;
  createdAt: number;
  updatedAt: number;
}
