import { gunzipSync } from 'node:zlib';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { H3 } from 'h3';
import { openApiText } from '../../core/http/openapi/document.ts';
import type { OpenApiDocument, Operation, Parameter, Response as ResponseSpec } from '../../core/http/openapi/types.ts';

/**
 * Checks answers against the OpenAPI document: every response of an API test must be one the
 * document promises for its route, method and status. An undocumented status or content type is
 * a violation; a JSON body must match its schema; other bodies are checked by content type only.
 * Answers on paths the document does not describe (demo pages, unknown routes) must still be the
 * error envelope when they are JSON.
 */

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const documentId = 'https://visualizer.invalid/openapi.json';

interface Route {
  template: string;
  pattern: RegExp;
  literalSegments: number;
  operations: Partial<Record<string, Operation>>;
}

export interface Violation {
  method: string;
  path: string;
  status: number;
  message: string;
}

const pointer = (...parts: string[]) => parts.map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

function compileRoutes(document: OpenApiDocument): Route[] {
  return (
    Object.entries(document.paths)
      .map(([template, item]) => {
        const parameters = Object.values(item).flatMap(
          (operation) => ((operation as Operation).parameters ?? []) as Parameter[],
        );
        const multi = new Set(
          parameters.filter((parameter) => parameter['x-multi-segment']).map((parameter) => parameter.name),
        );
        const segments = template.split('/').slice(1);
        const source = segments.map((segment) => {
          const name = /^\{(.+)\}$/.exec(segment)?.[1];
          if (!name) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          return multi.has(name) ? '.+' : '[^/]+';
        });
        return {
          template,
          pattern: new RegExp(`^/${source.join('/')}$`),
          literalSegments: segments.filter((segment) => !segment.startsWith('{')).length,
          operations: item as Partial<Record<string, Operation>>,
        };
      })
      // A literal segment outranks a parameter (`/widgets/embed.js` before `/widgets/{file}`), as in the router.
      .sort((a, b) => b.literalSegments - a.literalSegments)
  );
}

const mediaType = (header: string | null) => (header === null ? null : header.split(';')[0]!.trim().toLowerCase());
const isJson = (type: string) => type === 'application/json' || type.endsWith('+json');

/** The documented media type a response's content type falls under (`image/*` covers `image/webp`). */
function documentedType(content: Record<string, unknown>, type: string): string | null {
  if (type in content) return type;
  const wildcard = `${type.split('/')[0]}/*`;
  return wildcard in content ? wildcard : null;
}

/** The document's routes and schemas, compiled once per process and shared by every app a test starts. */
function compileDocument() {
  const document = JSON.parse(openApiText) as OpenApiDocument;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(document as unknown as object, documentId);
  const compiled = new Map<string, ValidateFunction>();
  return {
    ajv,
    document,
    routes: compileRoutes(document),
    schemaAt(ref: string) {
      let validate = compiled.get(ref);
      if (!validate) compiled.set(ref, (validate = ajv.compile({ $ref: `${documentId}#${ref}` })));
      return validate;
    },
  };
}

let shared: ReturnType<typeof compileDocument> | undefined;

export function createResponseValidator() {
  const { ajv, document, routes, schemaAt } = (shared ??= compileDocument());

  /** A documented answer and the JSON pointer of where it is written: its own, or the shared component it refers to. */
  const answerAt = (operation: Operation, path: string, method: string, status: string) => {
    const answer = operation.responses[status];
    if (!answer || !('$ref' in answer))
      return { spec: answer as ResponseSpec | undefined, at: pointer('paths', path, method, 'responses', status) };
    const name = answer.$ref.replace('#/components/responses/', '');
    return { spec: document.components.responses[name], at: pointer('components', 'responses', name) };
  };
  const violations: Violation[] = [];
  const pending = new Set<Promise<void>>();

  /**
   * A clone's body as text, gunzipped when it is gzip (as a client's fetch would). Told by its
   * magic bytes: on the client's side fetch has decoded it already, under the same headers.
   */
  const bodyText = async (response: Response) => {
    const bytes = Buffer.from(await response.clone().arrayBuffer());
    return (bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes).toString('utf8');
  };

  /** Checks one answer; a body is read from a clone only when it is JSON. */
  async function check(request: Request, response: Response): Promise<void> {
    const url = new URL(request.url);
    const method = request.method.toLowerCase();
    const status = response.status;
    const fail = (message: string) => violations.push({ method: request.method, path: url.pathname, status, message });
    const type = mediaType(response.headers.get('content-type'));
    const route = routes.find((candidate) => candidate.pattern.test(url.pathname));
    // HEAD is answered by the GET route, without a body.
    const operation = route?.operations[method === 'head' ? 'get' : method];
    if (!route || !operation) {
      if (type && isJson(type) && method !== 'head') {
        const validate = schemaAt(`/${pointer('components', 'schemas', 'Error')}`);
        const body = await bodyText(response);
        if (!validate(safeParse(body)))
          fail(
            `an undocumented route answered JSON that is not the error envelope: ${ajv.errorsText(validate.errors)}`,
          );
      }
      return;
    }
    const where = `${method === 'head' ? 'get' : method} ${route.template}`;
    // `default` is for clients (errors answered before any route, such as a malformed request): each status a route answers is documented.
    const { spec, at } = answerAt(operation, route.template, method, String(status));
    if (!spec)
      return void fail(
        `${where}: status ${status} is not documented (documented: ${Object.keys(operation.responses).join(', ')})`,
      );
    const content = spec.content ?? {};
    // A 304 repeats the headers of the representation it stands for, without its body.
    if (status === 304) return;
    if (!type) {
      if (Object.keys(content).length > 0 && method !== 'head')
        fail(`${where} ${status}: no content type, documented ${Object.keys(content).join(', ')}`);
      return;
    }
    const documented = documentedType(content, type);
    if (!documented)
      return void fail(
        `${where} ${status}: content type ${type} is not documented (documented: ${Object.keys(content).join(', ') || 'none'})`,
      );
    // HEAD gets the GET's status and headers, never a body.
    if (!isJson(type) || method === 'head') return;
    const body = await bodyText(response);
    const validate = schemaAt(`/${at}/${pointer('content', documented, 'schema')}`);
    if (!validate(safeParse(body)))
      fail(`${where} ${status}: ${ajv.errorsText(validate.errors, { dataVar: 'body' })} — body ${body.slice(0, 300)}`);
  }

  const track = (request: Request, response: Response) => {
    const checked = check(request, response).catch((error: unknown) => {
      violations.push({
        method: request.method,
        path: new URL(request.url).pathname,
        status: response.status,
        message: `could not check: ${String(error)}`,
      });
    });
    pending.add(checked);
    void checked.finally(() => pending.delete(checked));
  };

  return {
    violations,
    /** The errors of `value` against a schema from the document (a request example, say); none when it is valid. */
    validateAt(schema: object, value: unknown): string[] {
      const validate = ajv.compile(
        JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${documentId}#/components/`)),
      );
      return validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
    },
    /** Wraps the app's fetch handler (see `startHttpServer`'s `wrapFetch`) so each answer is checked as it leaves. */
    wrapFetch(fetch: H3['fetch']): H3['fetch'] {
      return async (request) => {
        const response = await fetch(request);
        track(request, response);
        return response;
      };
    },
    /**
     * The global `fetch`, with the same checks made on the client's side: for servers a test runs
     * in another process (`visualizer serve`), whose fetch handler it cannot wrap.
     */
    async fetch(input: string | URL, init?: RequestInit): Promise<Response> {
      const response = await fetch(input, init);
      // Only the method and the URL are read; a body given as a stream must not be read twice.
      track(new Request(input, { method: init?.method }), response);
      return response;
    },
    /** Waits for the checks under way, then throws one error naming every violation seen. */
    async assertNoViolations(): Promise<void> {
      await Promise.all(pending);
      if (violations.length === 0) return;
      const counts = new Map<string, number>();
      for (const { method, path, status, message } of violations) {
        const line = `${method} ${path} → ${status}: ${message}`;
        counts.set(line, (counts.get(line) ?? 0) + 1);
      }
      const lines = [...counts].map(([line, count]) => (count > 1 ? `${line} (${count} times)` : line));
      throw new Error(`Responses that break the OpenAPI document (docs/openapi.json):\n${lines.join('\n')}`);
    },
  };
}

const safeParse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return Symbol('not JSON');
  }
};

export type ResponseValidator = ReturnType<typeof createResponseValidator>;
