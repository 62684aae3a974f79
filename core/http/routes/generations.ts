import type { H3 } from 'h3';
import * as v from 'valibot';
import { generationModes, generationResource, generationStatuses } from '../../domain/generation.ts';
import { createGenerationSchema, maxImageBytes } from '../../domain/generation-input.ts';
import { validateIdempotencyKey } from '../../services/generations.ts';
import { readValidJson, validate } from '../body.ts';
import { apiKeyIdOf, requireKey, services } from '../context.ts';
import { pageQuerySchema, pathId, queryOf } from '../params.ts';
import type { RouteLimits } from '../rate-limit.ts';
import { rangeEntries as createdRangeEntries } from './conversions.ts';

/** A 10 MB photo as base64 is 13.4 MB; the rest of the body is small. */
const createBodyLimit = Math.ceil((maxImageBytes * 4) / 3) + 512 * 1024;

const listQuerySchema = v.pipe(
  v.object({
    ...pageQuerySchema.entries,
    status: v.optional(v.picklist(generationStatuses, "must be 'processing', 'complete' or 'failed'")),
    mode: v.optional(v.picklist(generationModes, `must be ${generationModes.map((mode) => `'${mode}'`).join(' or ')}`)),
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
