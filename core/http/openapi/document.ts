import { componentSchemas } from './components.ts';
import {
  addErrorCodes,
  csrfTokenParameter,
  everyOperationErrors,
  requestIdHeader,
  security,
  securitySchemes,
  sharedErrorResponses,
} from './helpers.ts';
import { apiAreas } from '../routes/areas.ts';
import { openApiPaths } from './paths/openapi.ts';
import { requestSchemasOf } from './request-schemas.ts';
import { sdkBundlePaths } from './paths/sdk-bundles.ts';
import type { Method, OpenApiDocument, PathFragment } from './types.ts';
import { outgoingWebhooks } from './webhooks.ts';

/**
 * Every public route: each area's fragment, exported by its route file beside the handlers and
 * listed once in routes/areas.ts. Two live here: the SDK's bundles, served by an app module the
 * core may not import, and this document's own route, whose file loads this one. The coverage
 * test (test/openapi.test.ts) fails while a route the app registers is in none of them.
 */
const fragments: PathFragment[] = [...apiAreas.map((area) => area.paths), sdkBundlePaths, openApiPaths];

/** Tags in the order a reader meets them, each said once. */
const tags = [
  {
    name: 'Generations',
    description: 'Render a customer photo with your products. Results arrive by webhook or polling.',
  },
  { name: 'Stores', description: 'The storefronts of your organization.' },
  { name: 'Credits', description: 'The balance generations are paid from, and its ledger.' },
  { name: 'Organization', description: 'Your organization and its settings, such as how long renders are kept.' },
  { name: 'Webhook endpoints', description: 'Where events are sent, signed per Standard Webhooks.' },
  { name: 'Events', description: 'Events sent to your endpoints, their deliveries and attempts.' },
  { name: 'Conversions', description: 'Orders your shop reports, and the generations they are attributed to.' },
  { name: 'Analytics', description: 'What visualizations did for a store.' },
  {
    name: 'Widgets',
    description: "Embeddable widgets: keyless generations from shoppers' browsers, limited to your origins.",
  },
  {
    name: 'Visitors',
    description:
      "A widget visitor's data: what is held about them (GDPR access requests) and erasing it (erasure requests).",
  },
  { name: 'Dashboard', description: 'Signing in to the dashboard: the session cookie the `/v1` routes also accept.' },
  { name: 'API keys', description: 'Secret and conversion keys, managed from a dashboard session only.' },
  { name: 'Team', description: 'Dashboard users, invitations and sessions: session-only, mostly admins only.' },
  { name: 'MCP', description: 'The Model Context Protocol server: the API as tools for AI assistants (docs/mcp.md).' },
  { name: 'Browser', description: 'Keyless routes the browser SDK calls from shop pages.' },
  { name: 'Browser SDK', description: 'The SDK scripts shop pages include.' },
  { name: 'Images', description: 'Generated images, when the service serves them itself.' },
  { name: 'Health', description: 'Liveness and readiness for load balancers and orchestrators.' },
  { name: 'Meta', description: 'This document.' },
  { name: 'Webhooks', description: 'What the service POSTs to your webhook endpoints.' },
];

const methods: Method[] = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

/** Merges fragments; a path or method documented twice is a mistake, said at build time. */
function mergePaths(list: PathFragment[]): PathFragment {
  const paths: PathFragment = {};
  for (const fragment of list) {
    for (const [path, item] of Object.entries(fragment)) {
      const into = (paths[path] ??= {});
      for (const [key, value] of Object.entries(item)) {
        if (key in into) throw new Error(`OpenAPI: ${path} ${key} is documented twice`);
        (into as Record<string, unknown>)[key] = value;
      }
    }
  }
  return paths;
}

/** Every answer carries `x-request-id`, so every response of every route says so. */
function withRequestIdHeader(paths: PathFragment): PathFragment {
  for (const item of Object.values(paths)) {
    for (const method of methods) {
      for (const response of Object.values(item[method]?.responses ?? {})) {
        if ('$ref' in response) continue;
        response.headers = { 'x-request-id': { $ref: '#/components/headers/RequestId' }, ...response.headers };
      }
    }
  }
  return paths;
}

/** Errors any request can meet, whatever its route: referenced by every operation. */
function withEveryOperationErrors(paths: PathFragment): PathFragment {
  for (const item of Object.values(paths)) {
    for (const method of methods) {
      const operation = item[method];
      if (operation) operation.responses = { ...operation.responses, ...everyOperationErrors };
    }
  }
  return paths;
}

/**
 * What every operation that takes the session cookie says alike: an ended session (401), and for
 * methods that change something the CSRF header and its 403; where a secret key would also do, a
 * viewer's session gets 403 `insufficient_role` (session-only routes say their own role rules).
 */
function withSessionAccess(
  paths: PathFragment,
  defaultSecurity: readonly Record<string, readonly string[]>[],
): PathFragment {
  for (const item of Object.values(paths)) {
    for (const method of methods) {
      const operation = item[method];
      const requirements = operation?.security ?? defaultSecurity;
      if (!operation || !requirements.some((requirement) => 'sessionCookie' in requirement)) continue;
      addErrorCodes(operation.responses, 401, ['session_expired']);
      if (method === 'get' || method === 'head' || method === 'options') continue;
      const csrf = { $ref: '#/components/parameters/CsrfToken' };
      // Fragments are module-level objects and the document may be built more than once.
      if (!operation.parameters?.some((parameter) => '$ref' in parameter && parameter.$ref === csrf.$ref))
        operation.parameters = [...(operation.parameters ?? []), csrf];
      addErrorCodes(
        operation.responses,
        403,
        requirements.some((requirement) => 'secretKey' in requirement)
          ? ['csrf_token_invalid', 'insufficient_role']
          : ['csrf_token_invalid'],
      );
    }
  }
  return paths;
}

export function buildOpenApiDocument(): OpenApiDocument {
  const paths = withEveryOperationErrors(
    withRequestIdHeader(withSessionAccess(mergePaths(fragments), security.secretKey)),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Visualizer API',
      version: '1',
      description:
        "AI product visualizations for online shops: virtual try-on and room staging behind a REST API, signed webhooks and a browser SDK. Paths are relative to the service's public URL (e.g. `https://visualizer.example.com`). Errors are always `{ error: { type, code, message, param } }`; branch on `code`.",
    },
    // Relative to where the document is served, so a deployment under a path prefix keeps it.
    servers: [{ url: '.', description: 'This service' }],
    security: security.secretKey.map((requirement) => ({ ...requirement })),
    tags,
    paths,
    webhooks: outgoingWebhooks,
    components: {
      schemas: componentSchemas(requestSchemasOf(paths)),
      securitySchemes,
      parameters: { CsrfToken: csrfTokenParameter },
      headers: { RequestId: requestIdHeader },
      responses: sharedErrorResponses,
    },
  };
}

/** The document as served and as written to docs/openapi.json: the same bytes in both places. */
export const openApiText = `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
