import type { H3 } from 'h3';
import * as v from 'valibot';
import { maxCharacters } from '../../domain/text.ts';
import type { Store } from '../../domain/store.ts';
import { readValidJson, validate } from '../body.ts';
import { requireKey, services } from '../context.ts';
import { isoTime } from '../format.ts';
import { pageQuerySchema, queryOf } from '../params.ts';
import type { RouteLimits } from '../rate-limit.ts';
import {
  errorResponses,
  jsonBody,
  jsonBodyErrors,
  ok,
  pageParameters,
  queryErrors,
  secretKeyErrors,
  serverErrors,
} from '../openapi/helpers.ts';
import type { PathFragment } from '../openapi/types.ts';

export const createStoreBody = v.strictObject({
  name: v.pipe(
    v.string('must be a string'),
    v.trim(),
    v.minLength(1, 'must not be empty'),
    maxCharacters(200, 'must be at most 200 characters'),
  ),
  attributionWindowDays: v.optional(
    v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(1), v.maxValue(365)),
  ),
});

export const storeResource = (store: Store) => ({
  id: store.id,
  object: 'store',
  name: store.name,
  attributionWindowDays: store.attributionWindowDays,
  createdAt: isoTime(store.createdAt),
});

// The store routes take no per-key rate limit (core/http/routes/stores.ts), so they answer no 429.
export const storePaths: PathFragment = {
  '/v1/stores': {
    get: {
      operationId: 'listStores',
      summary: 'List stores',
      description: 'The stores (storefronts) of your organization, newest first.',
      tags: ['Stores'],
      parameters: pageParameters,
      responses: {
        '200': ok('A page of stores.', 'StoreList'),
        ...errorResponses(serverErrors, secretKeyErrors, queryErrors),
      },
    },
    post: {
      operationId: 'createStore',
      summary: 'Create a store',
      description: 'Another storefront of your organization; its id goes into widgets, conversions and analytics.',
      tags: ['Stores'],
      requestBody: jsonBody('CreateStoreRequest', createStoreBody, {
        name: 'EU storefront',
        attributionWindowDays: 30,
      }),
      responses: {
        '201': ok('The new store.', 'Store'),
        ...errorResponses(serverErrors, secretKeyErrors, jsonBodyErrors),
      },
    },
  },
};

/** Stores of the caller's organization (beyond the spec: shops with several storefronts). */
export function storeRoutes(app: H3, limits: RouteLimits) {
  app.get('/v1/stores', async (event) => {
    const key = await requireKey(event, 'secret');
    await limits.read.take(key.id);
    const query = validate(pageQuerySchema, queryOf(event));
    const page = await services(event).tenants.storePage(key.organizationId, {
      limit: Number(query.limit),
      startingAfter: query.starting_after,
    });
    return { object: 'list', data: page.data.map(storeResource), has_more: page.hasMore };
  });

  app.post('/v1/stores', async (event) => {
    const key = await requireKey(event, 'secret');
    await limits.read.take(key.id);
    const body = await readValidJson(event, createStoreBody);
    const store = await services(event).tenants.createStore(key.organizationId, body);
    event.res.status = 201;
    return storeResource(store);
  });
}
