import {
  errorResponses,
  jsonBody,
  jsonBodyErrors,
  ok,
  pageParameters,
  queryErrors,
  secretKeyErrors,
  serverErrors,
} from '../helpers.ts';
import type { PathFragment } from '../types.ts';

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
      requestBody: jsonBody('CreateStoreRequest', { name: 'EU storefront', attributionWindowDays: 30 }),
      responses: {
        '201': ok('The new store.', 'Store'),
        ...errorResponses(serverErrors, secretKeyErrors, jsonBodyErrors),
      },
    },
  },
};
