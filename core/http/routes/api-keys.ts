import type { H3 } from 'h3';
import * as v from 'valibot';
import type { ApiKey } from '../../domain/api-keys.ts';
import { maxCharacters } from '../../domain/text.ts';
import { readValidJson, validate } from '../body.ts';
import { requireSession, services } from '../context.ts';
import { isoTime, isoTimeOrNull } from '../format.ts';
import { pageQuerySchema, pathId, queryOf } from '../params.ts';
import type { createRateLimiter } from '../rate-limit.ts';

const kind = v.picklist(['secret', 'conversion'], "must be 'secret' or 'conversion'");

export const createApiKeyBody = v.strictObject({
  kind,
  name: v.optional(v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'), maxCharacters(200, 'must be at most 200 characters'))),
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

const newestFirst = (a: ApiKey, b: ApiKey) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/**
 * An organization's API keys, from the dashboard only: a session (never a key) lists them, and an
 * admin's session creates and revokes them, so a leaked key cannot mint itself successors.
 */
export function apiKeyRoutes(app: H3, limits: { read: ReturnType<typeof createRateLimiter> }) {
  app.get('/v1/api-keys', async (event) => {
    const caller = await requireSession(event);
    limits.read.take(caller.id);
    const query = validate(listQuery, queryOf(event));
    // An organization holds a handful of keys, so they are paged here rather than in SQL.
    const keys = (await services(event).tenants.listKeys(caller.organizationId)).filter((key) => !query.kind || key.kind === query.kind).sort(newestFirst);
    const start = query.starting_after === undefined ? 0 : keys.findIndex((key) => key.id === query.starting_after) + 1;
    if (start === 0 && query.starting_after !== undefined) return { object: 'list', data: [], has_more: false };
    const limit = Number(query.limit);
    return { object: 'list', data: keys.slice(start, start + limit).map(apiKeyResource), has_more: keys.length > start + limit };
  });

  app.post('/v1/api-keys', async (event) => {
    const caller = await requireSession(event, { admin: true });
    limits.read.take(caller.id);
    const body = await readValidJson(event, createApiKeyBody);
    const issued = await services(event).tenants.createKey(caller.organizationId, body.kind, body.name ?? null);
    event.res.status = 201;
    event.res.headers.set('cache-control', 'no-store');
    return { ...apiKeyResource(issued.record), key: issued.key };
  });

  app.delete('/v1/api-keys/:id', async (event) => {
    const caller = await requireSession(event, { admin: true });
    limits.read.take(caller.id);
    return apiKeyResource(await services(event).tenants.revokeKey(caller.organizationId, pathId(event, 'id', 'key')));
  });
}
