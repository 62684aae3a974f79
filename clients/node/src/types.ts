import type { components, operations, paths, webhooks } from './schema.ts';

/**
 * Named types for what users handle, all taken from the generated schema so they follow the
 * OpenAPI document; nothing here describes a field by hand.
 */
type Schemas = components['schemas'];

export type Generation = Schemas['Generation'];
export type GenerationStatus = Generation['status'];
export type CreateGenerationRequest = Schemas['CreateGenerationRequest'];
export type DeletedGeneration = Schemas['DeletedGeneration'];
export type Organization = Schemas['Organization'];
export type Product = Schemas['Product'];
export type ImageVariants = Schemas['ImageVariants'];
export type Store = Schemas['Store'];
export type CreditBalance = Schemas['CreditBalance'];
export type CreditLedgerEntry = Schemas['CreditLedgerEntry'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type RotatedWebhookEndpoint = Schemas['RotatedWebhookEndpoint'];
export type DeletedWebhookEndpoint = Schemas['DeletedWebhookEndpoint'];
export type Event = Schemas['Event'];
export type EventWithDeliveries = Schemas['EventWithDeliveries'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type WebhookAttempt = Schemas['WebhookAttempt'];
export type Conversion = Schemas['Conversion'];
export type OrderWebhookRequest = Schemas['OrderWebhookRequest'];
export type AnalyticsSummary = Schemas['AnalyticsSummary'];
export type Widget = Schemas['Widget'];
export type Visitor = Schemas['Visitor'];
export type VisitorGeneration = Schemas['VisitorGeneration'];
export type VisitorIdentity = Schemas['VisitorIdentity'];
export type VisitorErasure = Schemas['VisitorErasure'];
export type ErrorEnvelope = Schemas['Error'];
export type ErrorType = ErrorEnvelope['error']['type'];

/** A delivered webhook event, discriminated by `type`: `data.imageVariants` after `generation.completed`, `data.error` after `generation.failed`. */
export type WebhookEvent = { [Type in keyof webhooks]: JsonBody<webhooks[Type]['post']> }[keyof webhooks];
export type WebhookEventType = WebhookEvent['type'];

type JsonBody<Operation> = Operation extends { requestBody?: { content: { 'application/json': infer Body } } }
  ? Body
  : never;

/** The JSON body of an operation's successful (2xx) answer. */
export type SuccessBody<Operation> = Operation extends { responses: infer Responses }
  ? {
      [Status in keyof Responses]: Status extends 200 | 201 | 202 ? JsonContent<Responses[Status]> : never;
    }[keyof Responses]
  : never;
type JsonContent<Response> = Response extends { content: { 'application/json': infer Body } } ? Body : never;

/** The request body of an operation, by operationId. */
export type RequestBody<Id extends keyof operations> = JsonBody<operations[Id]>;
/** The query parameters of an operation, by operationId. */
export type Query<Id extends keyof operations> = NonNullable<operations[Id]['parameters']['query']>;

/** Paths whose GET is a list paged with `starting_after`, and takes no path parameters. */
export type ListPath = {
  [Path in keyof paths]: paths[Path] extends { get: { parameters: { query?: infer Q; path?: never } } }
    ? [NonNullable<Q>] extends [never] // a route without query parameters (keyof never would be every key)
      ? never
      : 'starting_after' extends keyof NonNullable<Q>
        ? Path
        : never
    : never;
}[keyof paths];
export type ListQuery<Path extends ListPath> = Omit<
  NonNullable<paths[Path]['get']['parameters']['query']>,
  'starting_after'
>;
export type ListItem<Path extends ListPath> =
  SuccessBody<paths[Path]['get']> extends { data: Array<infer Item> } ? Item : never;

/** One page of a list: newest first; `has_more` says whether another follows. */
export interface Page<Item> {
  object: 'list';
  data: Item[];
  has_more: boolean;
}
