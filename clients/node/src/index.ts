/**
 * @visualizer/client: a typed client for the Visualizer API, for a shop's Node.js server.
 * Guide: docs/client.md in the Visualizer repository.
 */
export {
  createClient,
  type CallOptions,
  type ClientOptions,
  type CreateGenerationOptions,
  type OrderReport,
  type StreamOptions,
  type VisualizerClient,
} from './client.ts';
export {
  ApiError,
  AuthenticationError,
  AuthorizationError,
  ConflictError,
  ConnectionError,
  GenerationFailedError,
  GenerationTimeoutError,
  InvalidRequestError,
  NotFoundError,
  RateLimitError,
  VisualizerError,
  type VisualizerErrorFields,
} from './errors.ts';
export type { EventStream, EventStreamMessage, EventStreamOptions, EventStreamRetry } from './event-stream.ts';
export { paginate } from './paginate.ts';
export type { Fetch } from './retry.ts';
export type { WaitOptions } from './wait.ts';
export { verifyWebhook, WebhookVerificationError, type WebhookHeaders } from './webhooks.ts';
export type * from './types.ts';
export type { components, operations, paths, webhooks } from './schema.ts';
