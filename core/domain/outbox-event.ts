/** An event written in the same transaction as the change it reports, then delivered from there. */
export interface OutboxEvent {
  id: string;
  organizationId: string;
  type: string;
  /** The exact JSON body every delivery of this event sends. */
  body: string;
  createdAt: number;
  /** The generation the event reports, when it reports one: a generation's events are listed by it. */
  generationId?: string;
}
