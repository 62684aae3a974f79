import * as v from 'valibot';
import { choices, maxCharacters } from './text.ts';
import { eventTypes } from './generation.ts';
import { endpointStatuses } from './webhook-endpoint.ts';

const url = v.pipe(
  v.string('must be a string'),
  maxCharacters(2048, 'must be at most 2048 characters'),
  v.url('must be an absolute URL'),
  v.startsWith('https://', 'must be an https URL'),
);

const enabledEvents = v.pipe(
  v.array(
    v.picklist(['*', ...eventTypes], `must list event types (${eventTypes.join(', ')}) or be ["*"]`),
    'must be an array',
  ),
  v.minLength(1, 'must list at least one event type, or be ["*"]'),
  v.check((list) => !list.includes('*') || list.length === 1, '"*" means every event and must stand alone'),
  v.transform((list) => [...new Set(list)]),
);

const description = v.nullish(
  v.pipe(v.string('must be a string'), maxCharacters(500, 'must be at most 500 characters')),
);

export const createEndpointSchema = v.strictObject({ url, enabledEvents, description });

export const updateEndpointSchema = v.pipe(
  v.strictObject({
    url: v.optional(url),
    enabledEvents: v.optional(enabledEvents),
    description,
    status: v.optional(v.picklist(endpointStatuses, `must be ${choices(endpointStatuses)}`)),
  }),
  v.check(
    (patch) => Object.keys(patch).length > 0,
    'must change at least one of url, enabledEvents, description, status',
  ),
  v.metadata({ minProperties: 1 }),
);

export type CreateEndpointInput = v.InferOutput<typeof createEndpointSchema>;
export type UpdateEndpointInput = v.InferOutput<typeof updateEndpointSchema>;
