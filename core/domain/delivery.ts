/** One event's delivery to one endpoint, retried until it succeeds or gives up. */
export const deliveryStatuses = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

export interface DeliveryRecord {
  id: string;
  eventId: string;
  endpointId: string;
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt: number | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface DeliveryAttempt {
  id: string;
  deliveryId: string;
  attemptedAt: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  responseBody: string | null;
}
