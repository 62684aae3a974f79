import type { H3 } from 'h3';
import * as v from 'valibot';
import { maxCharacters } from '../../domain/text.ts';
import type { Store } from '../../domain/store.ts';
import { readValidJson, validate } from '../body.ts';
import { requireKey, services } from '../context.ts';
import { isoTime } from '../format.ts';
import { pageQuerySchema, queryOf } from '../params.ts';
import type { RouteLimits } from '../rate-limit.ts';

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
