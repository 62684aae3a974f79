/** A logged-in user linked to a browser visitor by the SDK's `identify`. */
export interface VisitorIdentity {
  organizationId: string;
  storeId: string;
  visitorId: string;
  sessionId: string | null;
  userId: string;
  traits: Record<string, string | number | boolean>;
  createdAt: number;
  updatedAt: number;
}
