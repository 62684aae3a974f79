import { toJsonSchemaDefs, type ConversionConfig } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { productSchema } from '../../domain/generation-input.ts';
import * as resources from './resources.ts';
import type { JsonSchema } from './types.ts';

type AnySchema = v.GenericSchema;

/**
 * The response resources, named. With the request schemas the routes name beside their handlers
 * (request-schemas.ts) they are every schema of the document; a schema used inside another
 * (Product inside Generation) becomes a `$ref` to its own component, so the typed client gets
 * one type per resource.
 */
const named: Record<string, AnySchema> = {
  Error: resources.errorEnvelopeSchema,
  Product: productSchema,
  ImageVariants: resources.imageVariantsSchema,
  Generation: resources.generationSchema,
  DeletedGeneration: resources.deletedGenerationSchema,
  Organization: resources.organizationSchema,
  Store: resources.storeSchema,
  CreditBalance: resources.creditBalanceSchema,
  CreditLedgerEntry: resources.creditLedgerEntrySchema,
  WebhookEndpoint: resources.webhookEndpointSchema,
  WebhookEndpointWithSecret: resources.webhookEndpointWithSecretSchema,
  RotatedWebhookEndpoint: resources.rotatedWebhookEndpointSchema,
  DeletedWebhookEndpoint: resources.deletedWebhookEndpointSchema,
  Event: resources.eventSchema,
  EventWithDeliveries: resources.eventWithDeliveriesSchema,
  WebhookDelivery: resources.webhookDeliverySchema,
  WebhookAttempt: resources.webhookAttemptSchema,
  Conversion: resources.conversionSchema,
  AnalyticsSummary: resources.analyticsSummarySchema,
  AnalyticsDay: resources.analyticsDaySchema,
  AnalyticsDaily: resources.analyticsDailySchema,
  Widget: resources.widgetSchema,
  PublicWidget: resources.publicWidgetSchema,
  User: resources.userSchema,
  DeletedUser: resources.deletedUserSchema,
  CurrentSession: resources.currentSessionSchema,
  Session: resources.sessionSchema,
  Invitation: resources.invitationSchema,
  ApiKey: resources.apiKeySchema,
  ApiKeyWithSecret: resources.apiKeyWithSecretSchema,
  Visitor: resources.visitorSchema,
  VisitorGeneration: resources.visitorGenerationSchema,
  VisitorIdentity: resources.visitorIdentitySchema,
  VisitorErasure: resources.visitorErasureSchema,
  Health: resources.healthSchema,
  Readiness: resources.readinessSchema,
  Success: resources.successSchema,
};

/** Resources listed with the common envelope `{ object: 'list', data, has_more }`, named `<Resource>List`. */
const listed = [
  'Generation',
  'Store',
  'CreditLedgerEntry',
  'WebhookEndpoint',
  'Event',
  'WebhookDelivery',
  'WebhookAttempt',
  'Conversion',
  'Widget',
  'User',
  'Session',
  'ApiKey',
  'VisitorGeneration',
  'VisitorIdentity',
  'VisitorErasure',
] as const;
export type ListedResource = (typeof listed)[number];

/** What valibot checks with code, said as JSON Schema: shared with the MCP tools' input schemas. */
export const jsonSchemaOverrides = {
  // A length limit in characters (text.ts's `maxCharacters`) is a check JSON Schema cannot read; its tag says the limit.
  overrideAction: ({ valibotAction, jsonSchema }) =>
    'maxCharacters' in valibotAction
      ? { ...jsonSchema, maxLength: (valibotAction as { maxCharacters: number }).maxCharacters }
      : undefined,
  overrideSchema: ({ valibotSchema }) =>
    // Metadata is checked by a custom schema (see generation-input.ts): string values under string keys.
    valibotSchema.type === 'custom' ? { type: 'object', additionalProperties: { type: 'string' } } : undefined,
} satisfies Pick<ConversionConfig, 'overrideAction' | 'overrideSchema'>;

const config: ConversionConfig = {
  target: 'draft-2020-12',
  // Requests are documented as callers send them: before defaults are applied and values transformed.
  typeMode: 'input',
  // Checks JSON Schema cannot say (a data URI's shape, a sum of item totals) stay the server's to enforce.
  errorMode: 'ignore',
  overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
  ...jsonSchemaOverrides,
};

/** Every component schema: the resources and `requests` (as callers send them), converted together so nesting becomes `$ref`s. */
export function componentSchemas(requests: Record<string, AnySchema>): Record<string, JsonSchema> {
  const clash = Object.keys(requests).find((name) => name in named);
  if (clash) throw new Error(`OpenAPI: ${clash} names both a resource and a request schema`);
  const schemas: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(toJsonSchemaDefs({ ...named, ...requests }, config))) {
    const { $schema: _dialect, ...rest } = schema as JsonSchema;
    schemas[name] = rest;
  }
  for (const name of listed) {
    schemas[`${name}List`] = {
      type: 'object',
      properties: {
        object: { const: 'list' },
        data: { type: 'array', items: { $ref: `#/components/schemas/${name}` } },
        has_more: {
          type: 'boolean',
          description: 'Whether a next page exists: ask again with `starting_after` set to the last id of `data`.',
        },
      },
      required: ['object', 'data', 'has_more'],
    };
  }
  return schemas;
}

export type SchemaName = keyof typeof named | `${ListedResource}List`;

/** A `$ref` to a named schema; the name is checked at compile time. */
export const ref = (name: SchemaName): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
