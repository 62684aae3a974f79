import type * as v from 'valibot';
import type { JsonSchema, Method, PathFragment } from './types.ts';

const methods: Method[] = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

/** Each request body's `$ref`, with the valibot schema it names; a WeakMap so the document's JSON never carries it. */
const declared = new WeakMap<JsonSchema, { name: string; schema: v.GenericSchema }>();

/**
 * A request body's schema, named where its route validates with it: the route file says once
 * which valibot schema the body is, and the document converts it with the components.
 */
export function requestSchema(name: string, schema: v.GenericSchema): JsonSchema {
  const reference = { $ref: `#/components/schemas/${name}` };
  declared.set(reference, { name, schema });
  return reference;
}

/** The request schemas the operations of `paths` name, by component name; one name given two schemas is a mistake. */
export function requestSchemasOf(paths: PathFragment): Record<string, v.GenericSchema> {
  const found: Record<string, v.GenericSchema> = {};
  for (const item of Object.values(paths)) {
    for (const method of methods) {
      for (const media of Object.values(item[method]?.requestBody?.content ?? {})) {
        const named = declared.get(media.schema);
        if (!named) continue;
        if (found[named.name] && found[named.name] !== named.schema)
          throw new Error(`OpenAPI: ${named.name} names two request schemas`);
        found[named.name] = named.schema;
      }
    }
  }
  return found;
}
