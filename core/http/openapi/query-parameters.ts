import type * as v from 'valibot';
import { couldBeId, maxIdLength } from '../../domain/text.ts';
import type { JsonSchema, Parameter } from './types.ts';

type ObjectLike = { entries: Record<string, v.GenericSchema> };
/** A route's query schema: an object, or a pipe that starts with one (and checks across fields after). */
type QuerySchema = ObjectLike | { pipe: readonly [ObjectLike, ...unknown[]] };
type NameOf<S> = S extends { pipe: readonly [infer O extends ObjectLike, ...unknown[]] }
  ? keyof O['entries'] & string
  : S extends ObjectLike
    ? keyof S['entries'] & string
    : never;

/**
 * What a query schema cannot say of a parameter: its description, an example, and its JSON
 * Schema where valibot checks it with code (a parsed date), which nothing could read back.
 */
export interface ParameterNotes {
  description: string;
  example?: unknown;
  schema?: JsonSchema;
}

type Step = { kind: string; type: string; requirement?: unknown; maxCharacters?: number };

/** One value's JSON Schema, from the valibot schema and pipe actions the routes' queries use. */
function valueSchema(schema: v.GenericSchema, name: string): JsonSchema {
  if (schema.type === 'picklist')
    return { type: 'string', enum: [...(schema as v.PicklistSchema<string[], never>).options] };
  if (schema.type !== 'string') throw new Error(`OpenAPI: query parameter ${name} is a ${schema.type}`);
  const json: JsonSchema = { type: 'string' };
  for (const step of ((schema as { pipe?: Step[] }).pipe ?? []).slice(1)) {
    if (step.type === 'min_length') json.minLength = step.requirement;
    else if (step.type === 'max_length') json.maxLength = step.requirement;
    else if ('maxCharacters' in step) json.maxLength = step.maxCharacters;
    else if (step.type === 'regex' && String(step.requirement) === String(/^\d+$/)) json.type = 'integer';
    // `Number` after the digits check: the integer said above.
    else if (step.type === 'transform' && json.type === 'integer') continue;
    else if (step.type === 'min_value') json.minimum = step.requirement;
    else if (step.type === 'max_value') json.maximum = step.requirement;
    else if (step.type === 'check' && step.requirement === couldBeId)
      Object.assign(json, { minLength: 1, maxLength: maxIdLength });
    // Anything else would vanish from the document unseen: said at build time instead.
    else throw new Error(`OpenAPI: query parameter ${name}: give its schema in the notes (${step.type})`);
  }
  return json;
}

/**
 * The query parameters of an operation, read from the valibot schema its handler validates the
 * query with: names, order, required, defaults, enums and bounds are the schema's, so each is
 * written once. `notes` add what code cannot read, and name every parameter.
 */
export function queryParameters<S extends QuerySchema>(
  schema: S,
  notes: Record<NameOf<S>, ParameterNotes>,
): Parameter[] {
  const object: ObjectLike = 'pipe' in schema ? schema.pipe[0] : (schema as ObjectLike);
  return Object.entries(object.entries).map(([name, entry]) => {
    const note = (notes as Record<string, ParameterNotes | undefined>)[name];
    if (!note) throw new Error(`OpenAPI: query parameter ${name} has no description`);
    const optional = entry.type === 'optional';
    const inner = optional ? (entry as v.OptionalSchema<v.GenericSchema, unknown>).wrapped : entry;
    const json = { ...(note.schema ?? valueSchema(inner, name)) };
    const fallback = optional ? (entry as v.OptionalSchema<v.GenericSchema, unknown>).default : undefined;
    if (fallback !== undefined) json.default = json.type === 'integer' ? Number(fallback) : fallback;
    return {
      name,
      in: 'query' as const,
      ...(optional ? {} : { required: true }),
      description: note.description,
      schema: json,
      ...(note.example === undefined ? {} : { example: note.example }),
    };
  });
}
