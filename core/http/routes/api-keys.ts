import type { H3 } from 'h3';
import * as v from 'valibot';
import { apiKeyKinds, type ApiKey } from '../../domain/api-keys.ts';
import { choices, maxCharacters } from '../../domain/text.ts';
import { readValidJson, validate } from '../body.ts';
import { requireSession, services } from '../context.ts';
import { isoTime, isoTimeOrNull } from '../format.ts';
import { pageQuerySchema, pathId, queryOf } from '../params.ts';
import type { RouteLimits } from '../rate-limit.ts';
import {
  adminSessionErrors,
  errorResponses,
  jsonBody,
  jsonBodyErrors,
  notFoundErrors,
  ok,
  pageNotes,
  pathParameter,
  queryErrors,
  security,
  serverErrors,
  sessionErrors,
} from '../openapi/helpers.ts';
import { queryParameters } from '../openapi/query-parameters.ts';
import type { PathFragment } from '../openapi/types.ts';

const kind = v.picklist(apiKeyKinds, `must be ${choices(apiKeyKinds)}`);

export const createApiKeyBody = v.strictObject({
  kind,
  name: v.optional(
    v.pipe(
      v.string('must be a string'),
      v.trim(),
      v.minLength(1, 'must not be empty'),
      maxCharacters(200, 'must be at most 200 characters'),
    ),
  ),
});

const listQuery = v.object({ ...pageQuerySchema.entries, kind: v.optional(kind) });

export const apiKeyResource = (key: ApiKey) => ({
  id: key.id,
  object: 'api_key' as const,
  kind: key.kind,
  name: key.name,
  displayPrefix: key.displayPrefix,
  createdAt: isoTime(key.createdAt),
  lastUsedAt: isoTimeOrNull(key.lastUsedAt),
  revokedAt: isoTimeOrNull(key.revokedAt),
});

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
      parameters: queryParameters(listQuery, { ...pageNotes, kind: { description: 'Only keys of this kind.' } }),
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
      requestBody: jsonBody('CreateApiKeyRequest', createApiKeyBody, { kind: 'secret', name: 'production server' }),
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

/**
 * An organization's API keys, from the dashboard only: a session (never a key) lists them, and an
 * admin's session creates and revokes them, so a leaked key cannot mint itself successors.
 */
export function apiKeyRoutes(app: H3, limits: RouteLimits) {
  app.get('/v1/api-keys', async (event) => {
    const caller = await requireSession(event);
    await limits.read.take(caller.id);
    const query = validate(listQuery, queryOf(event));
    const page = await services(event).tenants.keyPage(caller.organizationId, {
      limit: Number(query.limit),
      startingAfter: query.starting_after,
      kind: query.kind,
    });
    return { object: 'list', data: page.data.map(apiKeyResource), has_more: page.hasMore };
  });

  app.post('/v1/api-keys', async (event) => {
    const caller = await requireSession(event, { admin: true });
    await limits.read.take(caller.id);
    const body = await readValidJson(event, createApiKeyBody);
    const issued = await services(event).tenants.createKey(caller.organizationId, body.kind, body.name ?? null);
    event.res.status = 201;
    event.res.headers.set('cache-control', 'no-store');
    return { ...apiKeyResource(issued.record), key: issued.key };
  });

  app.delete('/v1/api-keys/:id', async (event) => {
    const caller = await requireSession(event, { admin: true });
    await limits.read.take(caller.id);
    return apiKeyResource(await services(event).tenants.revokeKey(caller.organizationId, pathId(event, 'id', 'key')));
  });
}
