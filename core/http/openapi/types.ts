/**
 * The small part of OpenAPI 3.1 this service writes. Loose where the spec is open (schemas are
 * plain JSON Schema 2020-12 objects) so a path fragment reads like the document it becomes.
 */

export type JsonSchema = Record<string, unknown>;

export interface MediaType {
  schema: JsonSchema;
  example?: unknown;
  examples?: Record<string, { summary?: string; value: unknown }>;
}

export interface Header {
  description?: string;
  required?: boolean;
  schema: JsonSchema;
}

export interface Response {
  description: string;
  headers?: Record<string, Header | { $ref: string }>;
  content?: Record<string, MediaType>;
}

export interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  description?: string;
  required?: boolean;
  schema: JsonSchema;
  /** How an array is written: `form` without `explode` is one comma-separated value. */
  style?: 'form' | 'simple';
  explode?: boolean;
  example?: unknown;
  /** A path parameter that spans slashes (`/cdn/{key}`), which OpenAPI itself cannot say. */
  'x-multi-segment'?: boolean;
}

export interface RequestBody {
  description?: string;
  required?: boolean;
  content: Record<string, MediaType>;
}

export interface Operation {
  /** camelCase, unique in the document: the typed client's method name. */
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** `[]` for a keyless route; omitted, the route needs the secret API key (the document's default). */
  security?: Record<string, string[]>[];
  parameters?: (Parameter | { $ref: string })[];
  requestBody?: RequestBody;
  responses: Record<string, Response | { $ref: string }>;
}

export type Method = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch';

export type PathItem = {
  summary?: string;
  description?: string;
  parameters?: (Parameter | { $ref: string })[];
} & Partial<Record<Method, Operation>>;

/**
 * One area's routes, keyed by OpenAPI path (`/v1/generations/{id}`); each route file exports its
 * own beside its handlers, and document.ts lists them.
 */
export type PathFragment = Record<string, PathItem>;

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: { url: string; description?: string }[];
  security: Record<string, string[]>[];
  tags: { name: string; description?: string }[];
  paths: PathFragment;
  webhooks: PathFragment;
  components: {
    schemas: Record<string, JsonSchema>;
    securitySchemes: Record<string, Record<string, unknown>>;
    parameters: Record<string, Parameter>;
    headers: Record<string, Header>;
    responses: Record<string, Response>;
  };
}
