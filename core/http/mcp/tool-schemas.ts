import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { generationModes, generationStatuses } from '../../domain/generation.ts';
import { createGenerationSchema, maxIdempotencyKeyLength } from '../../domain/generation-input.ts';
import { choices } from '../../domain/text.ts';
import { jsonSchemaOverrides } from '../openapi/components.ts';
import { cursorSchema } from '../params.ts';

/** The longest a `create_generation` call may wait for its render, in seconds. */
export const maxWaitSeconds = 60;

/**
 * The MCP tools' arguments, from the same valibot schemas as the REST routes: the tools validate
 * with them and list them as JSON Schema, so a tool and its route accept the same input.
 */
export const toolSchemas = {
  create_generation: v.strictObject({
    ...createGenerationSchema.entries,
    // The header of POST /v1/generations, as an argument: a tool call has no headers of its own.
    idempotency_key: v.optional(
      v.pipe(
        v.string('must be a string'),
        v.regex(/^[\x21-\x7e]+$/, 'must be printable ASCII characters without spaces'),
        v.maxLength(maxIdempotencyKeyLength, `must be at most ${maxIdempotencyKeyLength} characters`),
        v.description(
          'Any string of yours naming this request; sending the same key again returns the generation it made (never a second charge).',
        ),
      ),
    ),
    wait_seconds: v.optional(
      v.pipe(
        v.number('must be a number'),
        v.integer('must be a whole number'),
        v.minValue(0, `must be 0 to ${maxWaitSeconds}`),
        v.maxValue(maxWaitSeconds, `must be 0 to ${maxWaitSeconds}`),
        v.description(
          `How long to wait for the render to finish before answering (0 to ${maxWaitSeconds} seconds; default 0: answer at once with status processing).`,
        ),
      ),
      0,
    ),
  }),
  get_generation: v.strictObject({
    id: v.pipe(cursorSchema, v.description('The generation id (`agen_…`).')),
  }),
  // The REST list's query parameters, typed as JSON rather than as query-string text.
  list_generations: v.strictObject({
    limit: v.optional(
      v.pipe(
        v.number('must be a number'),
        v.integer('must be a whole number'),
        v.minValue(1, 'must be 1 to 100'),
        v.maxValue(100, 'must be 1 to 100'),
        v.description('How many generations to return, 1 to 100 (default 10).'),
      ),
      10,
    ),
    starting_after: v.optional(
      v.pipe(cursorSchema, v.description('For the next page: the id of the last generation of the previous page.')),
    ),
    status: v.optional(v.picklist(generationStatuses, `must be ${choices(generationStatuses)}`)),
    mode: v.optional(v.picklist(generationModes, `must be ${choices(generationModes)}`)),
  }),
  get_credit_balance: v.strictObject({}),
} as const;

export type ToolName = keyof typeof toolSchemas;
export type ToolArguments<Name extends ToolName> = v.InferOutput<(typeof toolSchemas)[Name]>;

/** A tool's arguments as JSON Schema, converted as the OpenAPI document converts request bodies. */
export function toolInputSchema(name: ToolName): { type: 'object'; [key: string]: unknown } {
  const { $schema: _dialect, ...schema } = toJsonSchema(toolSchemas[name], {
    target: 'draft-2020-12',
    typeMode: 'input',
    errorMode: 'ignore',
    ...jsonSchemaOverrides,
  }) as Record<string, unknown>;
  return { ...schema, type: 'object' };
}
