import type { ConversionRecord, GenerationRecord, WebhookEndpointRecord } from '../plugin.ts';
import { testIds } from './ids.ts';

/** A generation for the persistence suites to store: complete, 1K, one product, created at time 1; `fields` override. */
export const generationRecord = (organizationId: string, fields: Partial<GenerationRecord> = {}): GenerationRecord => ({
  id: testIds.id('agen_'),
  organizationId,
  storeId: null,
  apiKeyId: null,
  widgetId: null,
  status: 'complete',
  mode: 'virtual-try-on',
  imageSize: '1K',
  creditsCharged: 1,
  sourceImage: 'private:uploads/x/y.jpg',
  products: [{ productId: 1, productTitle: 'Hat', imageUrl: 'https://shop.example/hat.png' }],
  hint: null,
  metadata: null,
  imageUrl: null,
  imageVariants: null,
  errorCode: null,
  errorMessage: null,
  visitorId: null,
  sessionId: null,
  createdAt: 1,
  completedAt: null,
  ...fields,
});

/** A completed EUR order reported by the shop's server, with no ids or attribution, at time 1; `fields` override. */
export const conversionRecord = (
  organizationId: string,
  storeId: string,
  fields: Partial<ConversionRecord> = {},
): ConversionRecord => ({
  id: testIds.id('conv_'),
  organizationId,
  storeId,
  orderId: testIds.id('order_'),
  visitorId: null,
  sessionId: null,
  totalCents: 1000,
  currency: 'EUR',
  platform: 'custom',
  status: 'completed',
  items: [],
  source: 'server',
  attribution: null,
  orderCreatedAt: 1,
  createdAt: 1,
  updatedAt: 1,
  ...fields,
});

/** An enabled webhook endpoint for every event, created at time 1; `fields` override. */
export const webhookEndpointRecord = (
  organizationId: string,
  fields: Partial<WebhookEndpointRecord> = {},
): WebhookEndpointRecord => ({
  id: testIds.id('whe_'),
  organizationId,
  url: 'https://hooks.example/receive',
  description: null,
  enabledEvents: ['*'],
  status: 'enabled',
  disabledReason: null,
  secret: 'whsec_c2VjcmV0',
  previousSecrets: [],
  failingSince: null,
  createdAt: 1,
  updatedAt: 1,
  ...fields,
});
