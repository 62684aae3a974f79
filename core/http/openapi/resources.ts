import * as v from 'valibot';
import type { ApiErrorType } from '../../domain/errors.ts';
import { conversionStatuses } from '../../domain/conversion-input.ts';
import { eventTypes, generationModes, generationStatuses, imageSizes } from '../../domain/generation.ts';
import { userRoles } from '../../domain/accounts.ts';
import { apiKeyKinds } from '../../domain/api-keys.ts';
import { conversionSources } from '../../domain/conversion.ts';
import { deliveryStatuses } from '../../domain/delivery.ts';
import { endpointStatuses } from '../../domain/webhook-endpoint.ts';
import { variantWidths, type VariantName } from '../../imaging/variants.ts';
import { productSchema } from '../../domain/generation-input.ts';

/**
 * Valibot schemas of what the API answers, one per resource. Nothing validates responses with
 * them at run time: they exist to be converted into the OpenAPI document's `components.schemas`,
 * beside the request schemas the routes do validate with, so both come from one kind of source.
 */

const timestamp = v.pipe(
  v.string(),
  v.isoTimestamp(),
  v.description('ISO 8601 UTC with milliseconds, e.g. 2025-03-01T14:30:00.000Z.'),
);
const nullableTimestamp = v.nullable(timestamp);
const id = (prefix: string) => v.pipe(v.string(), v.description(`An id issued by the service (\`${prefix}_…\`).`));
const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const mode = v.picklist(generationModes);
const imageSize = v.picklist(imageSizes);

export const errorTypes = [
  'authentication_error',
  'authorization_error',
  'invalid_request_error',
  'rate_limit_error',
  'not_found_error',
  'conflict_error',
  'api_error',
] as const satisfies readonly ApiErrorType[];

export const errorEnvelopeSchema = v.strictObject({
  error: v.strictObject({
    type: v.picklist(errorTypes),
    code: v.pipe(
      v.string(),
      v.description('Stable, machine-readable: branch on it. Each operation lists the codes it can answer per status.'),
    ),
    message: v.pipe(v.string(), v.description('For people; may change.')),
    param: v.pipe(v.nullable(v.string()), v.description('The request field or parameter at fault, when there is one.')),
  }),
});

const variant = v.strictObject({ url: v.pipe(v.string(), v.url()), width: count });

export const imageVariantsSchema = v.strictObject(
  Object.fromEntries(Object.keys(variantWidths).map((name) => [name, variant])) as Record<VariantName, typeof variant>,
);

export const generationSchema = v.strictObject({
  id: id('agen'),
  object: v.literal('generation'),
  status: v.picklist(generationStatuses),
  mode,
  imageSize,
  imageUrl: v.pipe(
    v.nullable(v.pipe(v.string(), v.url())),
    v.description('The full-size image once complete; null before.'),
  ),
  imageVariants: v.nullable(imageVariantsSchema),
  products: v.array(productSchema),
  hint: v.nullable(v.string()),
  error: v.nullable(v.strictObject({ code: v.string(), message: v.string() })),
  metadata: v.nullable(v.record(v.string(), v.string())),
  createdAt: timestamp,
  completedAt: nullableTimestamp,
});

export const deletedGenerationSchema = v.strictObject({
  id: id('agen'),
  object: v.literal('generation'),
  deleted: v.literal(true),
});

export const organizationSchema = v.strictObject({
  id: id('org'),
  object: v.literal('organization'),
  name: v.string(),
  renderRetentionDays: v.pipe(
    v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1))),
    v.description(
      'Days a render (its original, variants and uploaded photo) is kept after it was made; then it is deleted and GET answers 410 `generation_expired`. Null (the default): kept for ever.',
    ),
  ),
  createdAt: timestamp,
});

export const storeSchema = v.strictObject({
  id: id('store'),
  object: v.literal('store'),
  name: v.string(),
  attributionWindowDays: v.pipe(v.number(), v.integer(), v.minValue(1)),
  createdAt: timestamp,
});

export const creditBalanceSchema = v.strictObject({
  object: v.literal('credit_balance'),
  balance: v.pipe(v.number(), v.integer(), v.description('Credits left; a 1K image costs 1, 2K 2, 4K 3.')),
});

export const creditLedgerEntrySchema = v.strictObject({
  id: id('cle'),
  object: v.literal('credit_ledger_entry'),
  delta: v.pipe(v.number(), v.integer(), v.description('Positive for grants and refunds, negative for debits.')),
  balanceAfter: v.pipe(v.number(), v.integer()),
  reason: v.pipe(v.string(), v.description('`generation`, `generation_refund`, or the reason given with a grant.')),
  reference: v.pipe(
    v.nullable(v.string()),
    v.description('What the entry is about (a generation id); null for grants.'),
  ),
  createdAt: timestamp,
});

const endpointFields = {
  id: id('whe'),
  object: v.literal('webhook_endpoint'),
  url: v.pipe(v.string(), v.url()),
  description: v.nullable(v.string()),
  enabledEvents: v.array(v.picklist(['*', ...eventTypes])),
  status: v.picklist(endpointStatuses),
  disabledReason: v.nullable(v.string()),
  createdAt: timestamp,
  updatedAt: timestamp,
};

export const webhookEndpointSchema = v.strictObject(endpointFields);

const secret = v.pipe(
  v.string(),
  v.startsWith('whsec_'),
  v.description('The signing secret (`whsec_` + base64): shown only when made.'),
);

export const webhookEndpointWithSecretSchema = v.strictObject({ ...endpointFields, secret });

export const rotatedWebhookEndpointSchema = v.strictObject({
  ...endpointFields,
  secret,
  previousSecretExpiresAt: v.pipe(
    timestamp,
    v.description('Until then deliveries are signed with the old secret as well.'),
  ),
});

export const deletedWebhookEndpointSchema = v.strictObject({
  id: id('whe'),
  object: v.literal('webhook_endpoint'),
  deleted: v.literal(true),
});

export const eventSchema = v.strictObject({
  id: id('evt'),
  type: v.picklist(eventTypes),
  createdAt: timestamp,
  data: generationSchema,
});

export const webhookDeliverySchema = v.strictObject({
  id: id('whd'),
  object: v.literal('webhook_delivery'),
  endpointId: v.string(),
  status: v.picklist(deliveryStatuses),
  attemptCount: count,
  nextAttemptAt: nullableTimestamp,
  lastError: v.nullable(v.string()),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const eventWithDeliveriesSchema = v.strictObject({
  ...eventSchema.entries,
  deliveries: v.array(webhookDeliverySchema),
});

export const webhookAttemptSchema = v.strictObject({
  id: id('wha'),
  object: v.literal('webhook_attempt'),
  deliveryId: v.string(),
  endpointId: v.string(),
  attemptedAt: timestamp,
  statusCode: v.nullable(v.pipe(v.number(), v.integer())),
  error: v.nullable(v.string()),
  durationMs: count,
  responseBody: v.nullable(v.string()),
});

export const conversionSchema = v.strictObject({
  id: id('conv'),
  object: v.literal('conversion'),
  orderId: v.string(),
  storeId: v.string(),
  visitorId: v.nullable(v.string()),
  sessionId: v.nullable(v.string()),
  totalCents: count,
  currency: v.string(),
  status: v.picklist(conversionStatuses),
  items: v.array(v.strictObject({ productId: v.string(), quantity: count, priceCents: count, totalCents: count })),
  source: v.picklist(conversionSources),
  orderCreatedAt: timestamp,
  attribution: v.nullable(
    v.strictObject({ generationId: v.string(), attributedRevenueCents: count, attributedItems: v.array(v.string()) }),
  ),
  createdAt: timestamp,
  updatedAt: timestamp,
});

const rate = v.pipe(
  v.nullable(v.number()),
  v.description('A fraction from 0 to 1, rounded to 4 places; null when there was no one to count.'),
);

export const analyticsSummarySchema = v.strictObject({
  object: v.literal('analytics_summary'),
  storeId: v.string(),
  from: timestamp,
  to: timestamp,
  visualizations: count,
  uniqueVisitorsVisualized: count,
  conversions: count,
  attributedConversions: count,
  attributedRevenue: v.pipe(
    v.record(v.pipe(v.string(), v.regex(/^[A-Z]{3}$/)), count),
    v.description(
      'Attributed revenue in cents, per currency (`{ "USD": 3000 }`); currencies are never added together.',
    ),
  ),
  conversionRate: v.strictObject({ visualized: rate, notVisualized: rate }),
  visitors: v.strictObject({
    visualized: count,
    visualizedConverted: count,
    notVisualized: count,
    notVisualizedConverted: count,
  }),
});

const revenueByCurrency = v.pipe(
  v.record(v.pipe(v.string(), v.regex(/^[A-Z]{3}$/)), count),
  v.description(
    'Attributed revenue in cents (minor units), per currency (`{ "USD": 3000 }`); currencies are never added together.',
  ),
);

export const analyticsDaySchema = v.strictObject({
  date: v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/), v.description('The UTC day, `YYYY-MM-DD`.')),
  generations: v.pipe(
    v.strictObject({ processing: count, complete: count, failed: count }),
    v.description('Generations created that day, by their status now.'),
  ),
  creditsSpent: v.pipe(
    count,
    v.description("Credits charged for that day's generations; a failed one's are refunded, so not counted."),
  ),
  conversions: v.pipe(
    count,
    v.description('Orders placed that day (by `orderCreatedAt`), refunded and cancelled ones left out.'),
  ),
  attributedConversions: v.pipe(count, v.description('Those of them attributed to a generation.')),
  attributedRevenue: revenueByCurrency,
});

export const analyticsDailySchema = v.strictObject({
  object: v.literal('analytics_daily'),
  storeId: v.pipe(v.nullable(v.string()), v.description('The store asked for; null for the whole organization.')),
  from: v.pipe(timestamp, v.description("The range's start, rounded down to midnight UTC.")),
  to: v.pipe(timestamp, v.description("The range's end (exclusive), rounded up to midnight UTC.")),
  data: v.pipe(
    v.array(analyticsDaySchema),
    v.description('One entry per UTC day of the range, oldest first, days without activity included (zeros).'),
  ),
});

export const widgetSchema = v.strictObject({
  id: id('wdg'),
  object: v.literal('widget'),
  storeId: v.string(),
  mode,
  imageSize,
  allowedOrigins: v.array(v.string()),
  dailyGenerationCap: v.pipe(
    v.number(),
    v.integer(),
    v.minValue(1),
    v.description('Generations the widget may make per UTC day, failed ones included.'),
  ),
  dailyCreditCap: v.pipe(
    v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1))),
    v.description(
      "Credits the widget's generations may spend per UTC day; a failed generation's are refunded, so not spent. null: no cap.",
    ),
  ),
  usageToday: v.pipe(
    v.strictObject({
      date: v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/), v.description('Today, the UTC day, `YYYY-MM-DD`.')),
      generations: v.pipe(
        count,
        v.description('Generations made today, failed ones included: what `dailyGenerationCap` counts.'),
      ),
      credits: v.pipe(
        count,
        v.description('Credits spent today (charged, less refunded): what `dailyCreditCap` counts.'),
      ),
    }),
    v.description('What the widget used since midnight UTC.'),
  ),
  createdAt: timestamp,
});

export const publicWidgetSchema = v.strictObject({ id: id('wdg'), object: v.literal('widget'), mode, imageSize });

export const healthSchema = v.strictObject({ status: v.literal('ok') });
export const readinessSchema = v.strictObject({ status: v.literal('ready') });
export const successSchema = v.strictObject({ success: v.literal(true) });

const userRole = v.picklist(userRoles);

export const userSchema = v.strictObject({
  id: id('usr'),
  object: v.literal('user'),
  email: v.string(),
  role: userRole,
  status: v.pipe(
    v.picklist(['active', 'invited']),
    v.description(
      '`invited` until the user first signs in (by setting a password through their invitation, or by a sign-in link); `active` after.',
    ),
  ),
  invitationExpiresAt: v.pipe(
    nullableTimestamp,
    v.description("When an invited user's newest unused invitation expires; null for active users."),
  ),
  createdAt: timestamp,
});

export const deletedUserSchema = v.strictObject({ id: id('usr'), object: v.literal('user'), deleted: v.literal(true) });

export const currentSessionSchema = v.strictObject({
  id: id('ses'),
  object: v.literal('session'),
  user: userSchema,
  organization: v.strictObject({ id: id('org'), name: v.string() }),
  csrfToken: v.pipe(
    v.string(),
    v.description(
      'Send it as `X-CSRF-Token` with every request made with the session cookie other than GET, HEAD and OPTIONS.',
    ),
  ),
  createdAt: timestamp,
  expiresAt: v.pipe(timestamp, v.description('The session ends then at the latest; after 7 days unused, sooner.')),
});

export const sessionSchema = v.strictObject({
  id: id('ses'),
  object: v.literal('session'),
  userId: id('usr'),
  current: v.pipe(v.boolean(), v.description('Whether this is the session of the request.')),
  userAgent: v.nullable(v.string()),
  ipAddress: v.nullable(v.string()),
  createdAt: timestamp,
  lastSeenAt: timestamp,
  expiresAt: timestamp,
});

export const invitationSchema = v.strictObject({
  object: v.literal('invitation'),
  userId: id('usr'),
  email: v.string(),
  role: userRole,
  url: v.pipe(
    v.string(),
    v.url(),
    v.description(
      'The one-time link that lets the invited person choose a password: shown once, hand it over yourself.',
    ),
  ),
  expiresAt: timestamp,
});

const apiKeyFields = {
  id: id('key'),
  object: v.literal('api_key'),
  kind: v.pipe(
    v.picklist(apiKeyKinds),
    v.description('`secret` keys call `/v1`; `conversion` keys only report orders.'),
  ),
  name: v.nullable(v.string()),
  displayPrefix: v.pipe(v.string(), v.description('The first characters of the key, to tell keys apart.')),
  createdAt: timestamp,
  lastUsedAt: v.pipe(nullableTimestamp, v.description('Refreshed at most once a minute.')),
  revokedAt: nullableTimestamp,
};

export const apiKeySchema = v.strictObject(apiKeyFields);
export const apiKeyWithSecretSchema = v.strictObject({
  ...apiKeyFields,
  key: v.pipe(v.string(), v.description('The key itself: shown this once, stored only as a hash.')),
});

/** A generation as an access request (`GET /v1/visitors/{visitorId}`) lists it: what ties it to the visitor as well. */
export const visitorGenerationSchema = v.strictObject({
  ...generationSchema.entries,
  storeId: v.pipe(v.nullable(v.string()), v.description('The store of the widget it was made through.')),
  widgetId: v.nullable(v.string()),
  sessionId: v.pipe(
    v.nullable(v.string()),
    v.description("The browser session it was made in (the SDK's `sessionId`)."),
  ),
});

export const visitorIdentitySchema = v.strictObject({
  object: v.literal('visitor_identity'),
  storeId: v.string(),
  userId: v.pipe(v.string(), v.description("The shop's own user id the SDK's `identify` linked the visitor to.")),
  traits: v.record(v.string(), v.union([v.string(), v.number(), v.boolean()])),
  sessionId: v.pipe(v.nullable(v.string()), v.description('The session of the latest `identify`.')),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const visitorErasureSchema = v.strictObject({
  id: id('vera'),
  object: v.literal('visitor_erasure'),
  status: v.pipe(
    v.picklist(['pending', 'complete']),
    v.description('`pending` until every generation, identity and conversion of the visitor has been dealt with.'),
  ),
  requestedBy: v.pipe(
    v.strictObject({ type: v.picklist(['api_key', 'user']), id: v.string() }),
    v.description('Who asked: the API key (`key_…`) or the dashboard user (`usr_…`).'),
  ),
  requestedAt: timestamp,
  completedAt: nullableTimestamp,
  generationsDeleted: v.pipe(
    count,
    v.description('Generations deleted; their images are deleted by jobs of their own, soon after.'),
  ),
  identitiesDeleted: v.pipe(count, v.description('Identity records (`identify`) deleted, one per store at most.')),
  conversionsUnlinked: v.pipe(
    count,
    v.description('Conversions kept for your revenue figures, with their visitor and session ids removed.'),
  ),
});

const visitorItems = <T extends v.GenericSchema>(item: T, kind: string, what: string) =>
  v.pipe(
    v.strictObject({
      total: v.pipe(count, v.description(`How many ${what} there are in all.`)),
      has_more: v.pipe(
        v.boolean(),
        v.description(
          `Whether there are more than listed (\`total\` > the length of \`data\`): \`GET /v1/visitors/{visitorId}/${kind}\` pages through them all.`,
        ),
      ),
      data: v.pipe(v.array(item), v.description(`At most \`limit\` of them, newest first.`)),
    }),
    v.description(`The visitor's ${what}.`),
  );

export const visitorSchema = v.strictObject({
  object: v.literal('visitor'),
  visitorId: v.string(),
  limit: v.pipe(count, v.description('The most items listed of each kind (100); `total` counts them all.')),
  generations: visitorItems(
    visitorGenerationSchema,
    'generations',
    'generations (made through a widget with this visitor id)',
  ),
  identities: visitorItems(
    visitorIdentitySchema,
    'identities',
    "identities (the SDK's `identify` calls), one per store",
  ),
  conversions: visitorItems(
    conversionSchema,
    'conversions',
    'conversions (orders reported with this visitor id, or with a session id of its generations, identities or conversions)',
  ),
  pendingErasure: v.pipe(
    v.nullable(visitorErasureSchema),
    v.description('An erasure of this visitor still under way, or null.'),
  ),
});
