import {
  adminSessionErrors,
  errorResponses,
  jsonBody,
  jsonBodyErrors,
  notFoundErrors,
  ok,
  pageParameters,
  pathParameter,
  queryErrors,
  security,
  serverErrors,
  sessionErrors,
} from '../helpers.ts';
import { apiKeyKinds } from '../../../domain/api-keys.ts';
import type { PathFragment } from '../types.ts';

// Session-only: a secret key gets 403 `session_required`, so a leaked key cannot mint new keys.
export const apiKeyPaths: PathFragment = {
  '/v1/api-keys': {
    get: {
      operationId: 'listApiKeys',
      summary: 'List API keys',
      description:
        'Secret and conversion keys of your organization, revoked ones included, newest first. Any dashboard user.',
      tags: ['API keys'],
      security: security.session,
      parameters: [
        ...pageParameters,
        { name: 'kind', in: 'query', description: 'Only keys of this kind.', schema: { enum: [...apiKeyKinds] } },
      ],
      responses: {
        '200': ok('A page of keys.', 'ApiKeyList'),
        ...errorResponses(serverErrors, sessionErrors, queryErrors),
      },
    },
    post: {
      operationId: 'createApiKey',
      summary: 'Create an API key',
      description: 'Admins only. The answer holds the key itself, shown this once.',
      tags: ['API keys'],
      security: security.session,
      requestBody: jsonBody('CreateApiKeyRequest', { kind: 'secret', name: 'production server' }),
      responses: {
        '201': ok('The new key, with the key itself.', 'ApiKeyWithSecret'),
        ...errorResponses(serverErrors, adminSessionErrors, jsonBodyErrors),
      },
    },
  },
  '/v1/api-keys/{id}': {
    delete: {
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key',
      description: 'Admins only. The key stops working at once; revoking it again keeps the first time.',
      tags: ['API keys'],
      security: security.session,
      parameters: [pathParameter('id', 'The key id (`key_…`).')],
      responses: {
        '200': ok('The revoked key.', 'ApiKey'),
        ...errorResponses(serverErrors, adminSessionErrors, notFoundErrors),
      },
    },
  },
};
