/** One event's delivery to one endpoint, retried until it succeeds or gives up. */
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

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
