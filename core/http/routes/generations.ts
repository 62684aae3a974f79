import type { H3 } from 'h3';
import * as v from 'valibot';
import { creditCost, generationModes, generationResource, generationStatuses } from '../../domain/generation.ts';
import { createGenerationSchema, maxImageBytes } from '../../domain/generation-input.ts';
import { choices } from '../../domain/text.ts';
import { validateIdempotencyKey } from '../../services/generations.ts';
import { readValidJson, validate } from '../body.ts';
import { apiKeyIdOf, requireKey, services } from '../context.ts';
import { pageQuerySchema, pathId, queryOf } from '../params.ts';
import type { RouteLimits } from '../rate-limit.ts';
import { rangeEntries as createdRangeEntries, rangeNotes } from './conversions.ts';
import {
  errorResponses,
  idempotencyKeyParameter,
  jsonBody,
  jsonBodyErrors,
  notFoundErrors,
  ok,
  pageNotes,
  pathParameter,
  queryErrors,
  secretKeyErrors,
  serverErrors,
} from '../openapi/helpers.ts';
import { queryParameters } from '../openapi/query-parameters.ts';
import type { PathFragment } from '../openapi/types.ts';

/** A 10 MB photo as base64 is 13.4 MB; the rest of the body is small. */
export const createBodyLimit = Math.ceil((maxImageBytes * 4) / 3) + 512 * 1024;

const listQuerySchema = v.pipe(
  v.object({
    ...pageQuerySchema.entries,
    status: v.optional(v.picklist(generationStatuses, `must be ${choices(generationStatuses)}`)),
    mode: v.optional(v.picklist(generationModes, `must be ${choices(generationModes)}`)),
    ...createdRangeEntries,
  }),
  v.forward(
    v.check(
      (query) => query.from === undefined || query.to === undefined || query.from < query.to,
      'must be after from',
    ),
    ['to'],
  ),
);

/** The conversions list's `from`/`to`, applied to `createdAt`. */
const createdRange = {
  from: { ...rangeNotes.from, description: `${rangeNotes.from.description} Compared with \`createdAt\`.` },
  to: { ...rangeNotes.to, description: `${rangeNotes.to.description} Compared with \`createdAt\`.` },
};

const createGenerationExample = {
  mode: 'virtual-try-on',
  image: 'https://shop.example/uploads/customer-photo.jpg',
  products: [
    {
      productId: 'sku-1042',
      productTitle: 'Linen shirt, sky blue',
      imageUrl: 'https://shop.example/images/sku-1042.jpg',
      productUrl: 'https://shop.example/products/linen-shirt',
    },
  ],
  hint: 'Sleeves rolled up',
  imageSize: '1K',
  metadata: { orderId: '1234' },
};

/** `1K = 1, 2K = 2, 4K = 3`: what each size costs, from the table the debit uses. */
const costs = Object.entries(creditCost)
  .map(([size, cost]) => `${size} = ${cost}`)
  .join(', ');

const replayed = {
  'idempotent-replayed': {
    description: '`true` when an `Idempotency-Key` seen before answered its first generation.',
    schema: { type: 'string', enum: ['true'] },
  },
};

export const generationPaths: PathFragment = {
  '/v1/generations': {
    post: {
      operationId: 'createGeneration',
      summary: 'Create a generation',
      description: `Starts rendering a photo with 1 to 3 products and charges its credits (${costs}). Answers 202 at once with \`status: processing\`; the result arrives by the \`generation.completed\` or \`generation.failed\` webhook, or by polling. An \`Idempotency-Key\` bound to a generation that was deleted since answers 410 (\`generation_deleted\`, or \`generation_expired\` when the render retention deleted it): nothing new is made or charged.`,
      tags: ['Generations'],
      parameters: [idempotencyKeyParameter],
      requestBody: jsonBody(
        'CreateGenerationRequest',
        createGenerationSchema,
        createGenerationExample,
        '`image` is an https URL or a `data:image/*;base64,` URI of at most 10 MB decoded.',
      ),
      responses: {
        '200': ok(
          'Replayed: the `Idempotency-Key` was used before; this is its generation as it is now.',
          'Generation',
          replayed,
        ),
        '202': ok('Accepted: rendering has started.', 'Generation'),
        ...errorResponses(serverErrors, secretKeyErrors, jsonBodyErrors, {
          400: ['idempotency_key_invalid', 'image_too_large', 'invalid_image'],
          403: ['insufficient_credits'],
          410: ['generation_deleted', 'generation_expired'],
          503: ['storage_unavailable'],
        }),
      },
    },
    get: {
      operationId: 'listGenerations',
      summary: 'List generations',
      description: 'Newest first. The filters combine, and page like the unfiltered list.',
      tags: ['Generations'],
      parameters: queryParameters(listQuerySchema, {
        ...pageNotes,
        status: { description: 'Only generations in this status.' },
        mode: { description: 'Only generations of this mode.' },
        ...createdRange,
      }),
      responses: {
        '200': ok('A page of generations.', 'GenerationList'),
        ...errorResponses(serverErrors, secretKeyErrors, queryErrors),
      },
    },
  },
  '/v1/generations/{id}': {
    get: {
      operationId: 'getGeneration',
      summary: 'Get a generation',
      tags: ['Generations'],
      description:
        "A deleted generation answers 404 `resource_missing`, like one that never was; one the organization's render retention deleted answers 410 `generation_expired`.",
      parameters: [pathParameter('id', 'The generation id (`agen_…`).')],
      responses: {
        '200': ok('The generation.', 'Generation'),
        ...errorResponses(serverErrors, secretKeyErrors, notFoundErrors, { 410: ['generation_expired'] }),
      },
    },
    delete: {
      operationId: 'deleteGeneration',
      summary: 'Delete a generation',
      description:
        'Deletes the generation with its original image, every variant and the uploaded photo: the image URLs answer 404 within moments (a CDN in front of the bucket may serve cached copies until they expire), and GET answers 404. A `processing` generation is deleted too: its render is discarded, never stored, and its credits are refunded; a finished one is not refunded. Deleting a deleted generation answers 200 again. Event bodies already sent or queued keep the URLs. With the session cookie, admins only.',
      tags: ['Generations'],
      parameters: [pathParameter('id', 'The generation id (`agen_…`).')],
      responses: {
        '200': ok('Deleted.', 'DeletedGeneration'),
        ...errorResponses(serverErrors, secretKeyErrors, notFoundErrors),
      },
    },
  },
};

export function generationRoutes(app: H3, limits: RouteLimits) {
  app.post('/v1/generations', async (event) => {
    const key = await requireKey(event, 'secret');
    await limits.create.take(key.id);
    const idempotencyKey = validateIdempotencyKey(event.req.headers.get('idempotency-key'));
    const { generations } = services(event);
    // A bound key returns its generation whatever the new body is, even one that is invalid, not
    // JSON or not sent as JSON (the spec: the new body is ignored), so it is looked up first.
    const bound = idempotencyKey ? await generations.boundTo(key.organizationId, idempotencyKey) : null;
    const { generation, replayed } = bound
      ? { generation: bound, replayed: true }
      : await generations.create(
          { organizationId: key.organizationId, apiKeyId: apiKeyIdOf(key) },
          await readValidJson(event, createGenerationSchema, createBodyLimit),
          idempotencyKey,
        );
    event.res.status = replayed ? 200 : 202;
    if (replayed) event.res.headers.set('idempotent-replayed', 'true');
    return generationResource(generation);
  });

  app.get('/v1/generations', async (event) => {
    const key = await requireKey(event, 'secret');
    await limits.read.take(key.id);
    const query = validate(listQuerySchema, queryOf(event));
    const page = await services(event).generations.list(key.organizationId, {
      limit: Number(query.limit),
      startingAfter: query.starting_after,
      status: query.status,
      mode: query.mode,
      from: query.from,
      to: query.to,
    });
    return { object: 'list', data: page.data.map(generationResource), has_more: page.hasMore };
  });

  app.get('/v1/generations/:id', async (event) => {
    const key = await requireKey(event, 'secret');
    await limits.read.take(key.id);
    return generationResource(
      await services(event).generations.get(key.organizationId, pathId(event, 'id', 'generation')),
    );
  });

  // A secret key or an admin's session (requireKey refuses a viewer's unsafe request).
  app.delete('/v1/generations/:id', async (event) => {
    const caller = await requireKey(event, 'secret');
    await limits.read.take(caller.id);
    const id = pathId(event, 'id', 'generation');
    await services(event).generations.delete(caller.organizationId, id);
    return { id, object: 'generation' as const, deleted: true as const };
  });
}
