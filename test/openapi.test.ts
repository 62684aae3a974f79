import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { appModules } from '../cli/app-modules.ts';
import { eventTypes } from '../core/domain/generation.ts';
import { createHttpApp } from '../core/http/app.ts';
import { openApiText } from '../core/http/openapi/document.ts';
import type { OpenApiDocument, Operation } from '../core/http/openapi/types.ts';
import { bearer, startTestApp, type TestApp } from './support/app.ts';
import { createResponseValidator } from './support/response-validator.ts';

const document = JSON.parse(openApiText) as OpenApiDocument;
const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;

/** Routes that are not public API: the demo shop's pages (demo/module.ts) and the dashboard's (dashboard/module.ts), named one by one. */
const notPublic = new Set([
  'GET /demo',
  'GET /demo/product',
  'GET /demo/checkout',
  'POST /demo/checkout',
  'GET /demo/confirmation',
  'GET /dashboard',
  'GET /dashboard/assets/:file',
  'GET /dashboard/generations/:id/engine',
]);

/** `/v1/events/:id`, `/v1/events/{id}` and `/cdn/**` alike: every parameter, one or many segments, as `{}`. */
const shape = (path: string) => path.replace(/\{[^}]+\}|:[A-Za-z_]\w*|\*\*?/g, '{}');

const documented = () =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    methods.filter((method) => item[method]).map((method) => `${method.toUpperCase()} ${shape(path)}`),
  );

const operations = (): Operation[] =>
  [...Object.values(document.paths), ...Object.values(document.webhooks)].flatMap((item) =>
    methods.flatMap((method) => (item[method] ? [item[method]!] : [])),
  );

describe('the OpenAPI document', () => {
  let app: TestApp;
  let key: string;
  before(async () => {
    app = await startTestApp();
    key = (await app.tenants.createOrganization({ name: 'OpenAPI', credits: 0 })).apiKey.key;
  });
  after(() => app.close());

  it('documents every route the app registers, and nothing it does not', () => {
    // h3 keeps the routes it was given on the app: the same list its router matches against.
    const registered = createHttpApp(app.container, appModules)
      ['~routes'].map((route) => `${route.method ?? 'ALL'} ${route.route}`)
      .filter((route) => !notPublic.has(route));
    assert.ok(registered.length > 30, 'the app lists its routes');
    const missing = registered.filter(
      (route) => !documented().includes(`${route.split(' ')[0]} ${shape(route.split(' ')[1]!)}`),
    );
    assert.deepEqual(missing, [], 'routes the app registers that docs/openapi.json does not describe');
    const registeredShapes = new Set(
      registered.map((route) => `${route.split(' ')[0]} ${shape(route.split(' ')[1]!)}`),
    );
    assert.deepEqual(
      documented().filter((route) => !registeredShapes.has(route)),
      [],
      'documented routes the app does not register',
    );
    for (const route of notPublic)
      assert.ok(
        createHttpApp(app.container, appModules)['~routes'].some((r) => `${r.method} ${r.route}` === route),
        `${route} is still registered`,
      );
  });

  it('is served at /openapi.json byte for byte as docs/openapi.json (run `npm run openapi` when this fails)', async () => {
    const response = await fetch(`${app.url}/openapi.json`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type')!, /^application\/json/);
    const served = await response.text();
    assert.equal(served, readFileSync(new URL('../docs/openapi.json', import.meta.url), 'utf8'));
    assert.doesNotMatch(served, /127\.0\.0\.1|localhost/, 'nothing in it depends on the host');
  });

  it('is served gzipped to clients that accept it, and revalidated by ETag', async () => {
    const plain = await fetch(`${app.url}/openapi.json`, { headers: { 'accept-encoding': 'identity' } });
    assert.equal(plain.headers.get('content-encoding'), null);
    const plainLength = Number(plain.headers.get('content-length'));
    await plain.arrayBuffer();
    // fetch asks for gzip and decodes it; the headers still say what came over the wire.
    const zipped = await fetch(`${app.url}/openapi.json`);
    assert.equal(zipped.headers.get('content-encoding'), 'gzip');
    assert.ok(Number(zipped.headers.get('content-length')) * 10 < plainLength, 'gzip shrinks it to under a tenth');
    assert.equal(await zipped.text(), readFileSync(new URL('../docs/openapi.json', import.meta.url), 'utf8'));
    const again = await fetch(`${app.url}/openapi.json`, { headers: { 'if-none-match': zipped.headers.get('etag')! } });
    assert.equal(again.status, 304);
  });

  it('passes an OpenAPI 3.1 validator', async () => {
    const result = await new Validator().validate(JSON.parse(openApiText));
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
    assert.equal(document.openapi, '3.1.0');
  });

  it('gives every operation a unique camelCase operationId, a summary and tags', () => {
    const ids = operations().map((operation) => operation.operationId);
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    for (const operation of operations()) {
      assert.match(operation.operationId, /^[a-z][A-Za-z0-9]*$/);
      assert.ok(operation.summary, `${operation.operationId} has a summary`);
      assert.ok(operation.tags.length > 0, `${operation.operationId} has tags`);
    }
    const declared = document.tags.map((tag) => tag.name);
    assert.deepEqual(
      [...new Set(operations().flatMap((operation) => operation.tags))].filter((tag) => !declared.includes(tag)),
      [],
      'every tag is declared, with a description',
    );
    for (const id of [
      'createGeneration',
      'getGeneration',
      'listGenerations',
      'listStores',
      'getCreditBalance',
      'listCreditLedgerEntries',
    ])
      assert.ok(ids.includes(id), id);
  });

  it('gives every request body an example that its own schema accepts', () => {
    const validator = createResponseValidator();
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of methods) {
        for (const [type, media] of Object.entries(item[method]?.requestBody?.content ?? {})) {
          assert.ok(media.example !== undefined, `${method} ${path} ${type} has an example`);
          assert.deepEqual(
            validator.validateAt(media.schema, media.example),
            [],
            `${method} ${path} ${type}: its example`,
          );
        }
      }
    }
  });

  it('declares the shared error answers once, and 431 and `default` on every operation', () => {
    const shared = document.components.responses;
    assert.ok(shared.HeadersTooLarge && shared.UnexpectedError && shared.InternalError);
    const text = (value: unknown) => JSON.stringify(value);
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of methods) {
        const responses = item[method]?.responses;
        if (!responses) continue;
        assert.deepEqual(responses['431'], { $ref: '#/components/responses/HeadersTooLarge' }, `${method} ${path}`);
        assert.deepEqual(responses.default, { $ref: '#/components/responses/UnexpectedError' }, `${method} ${path}`);
        for (const [status, answer] of Object.entries(responses)) {
          const copied = Object.entries(shared).find(
            ([, component]) => text({ ...component, headers: undefined }) === text({ ...answer, headers: undefined }),
          );
          assert.equal(
            copied,
            undefined,
            `${method} ${path} ${status} repeats components.responses.${copied?.[0]} instead of referring to it`,
          );
        }
      }
    }
  });

  it('describes the security schemes, the outgoing events with the Standard Webhooks headers, and the error envelope', () => {
    assert.deepEqual(Object.keys(document.components.securitySchemes).sort(), [
      'conversionKey',
      'secretKey',
      'sessionCookie',
    ]);
    assert.deepEqual(
      document.security,
      [{ secretKey: [] }, { sessionCookie: [] }],
      'a secret key or, from the dashboard, the session cookie',
    );
    assert.deepEqual(document.paths['/v1/api-keys']!.post!.security, [{ sessionCookie: [] }]);
    const csrf = (operation: Operation) =>
      (operation.parameters ?? []).some(
        (parameter) => '$ref' in parameter && parameter.$ref === '#/components/parameters/CsrfToken',
      );
    assert.equal(
      csrf(document.paths['/v1/stores']!.post!),
      true,
      'a change that takes the cookie documents X-CSRF-Token',
    );
    assert.equal(csrf(document.paths['/v1/stores']!.get!), false, 'a read does not');
    assert.equal(csrf(document.paths['/api/webhooks/orders']!.post!), false, 'nor a route that takes no cookie');
    assert.equal(document.components.parameters.CsrfToken?.name, 'X-CSRF-Token');
    assert.deepEqual(document.paths['/api/webhooks/orders']!.post!.security, [{ conversionKey: [] }]);
    assert.deepEqual(Object.keys(document.webhooks).sort(), [...eventTypes].sort());
    for (const type of eventTypes) {
      const headers = (document.webhooks[type]!.post!.parameters ?? []).map((parameter) =>
        'name' in parameter ? parameter.name : '',
      );
      assert.deepEqual(headers, ['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    }
    const envelope = document.components.schemas.Error as { properties: { error: { required: string[] } } };
    assert.deepEqual(envelope.properties.error.required, ['type', 'code', 'message', 'param']);
    const generationPost = document.paths['/v1/generations']!.post!;
    assert.ok(
      generationPost.parameters?.some((parameter) => 'name' in parameter && parameter.name === 'Idempotency-Key'),
    );
    assert.ok(
      generationPost.responses['200'] &&
        'headers' in generationPost.responses['200'] &&
        generationPost.responses['200'].headers?.['idempotent-replayed'],
    );
  });

  it('pages stores and the credit ledger with limit and starting_after', async () => {
    for (const path of ['/v1/stores', '/v1/credits/ledger']) {
      const names = (document.paths[path]!.get!.parameters ?? []).map((parameter) =>
        'name' in parameter ? parameter.name : '',
      );
      assert.deepEqual(names, ['limit', 'starting_after'], path);
    }
    const { organization, apiKey } = await app.tenants.createOrganization({ name: 'Pages', credits: 1 });
    await app.tenants.createStore(organization.id, { name: 'Second' });
    await app.tenants.addCredits(organization.id, 2);
    const first = await (await fetch(`${app.url}/v1/stores?limit=1`, { headers: bearer(apiKey.key) })).json();
    assert.equal(first.has_more, true);
    const second = await (
      await fetch(`${app.url}/v1/stores?limit=1&starting_after=${first.data[0].id}`, { headers: bearer(apiKey.key) })
    ).json();
    assert.equal(second.has_more, false);
    assert.equal(second.data.length, 1);
    assert.notEqual(second.data[0].id, first.data[0].id);
    const ledger = await (await fetch(`${app.url}/v1/credits/ledger?limit=1`, { headers: bearer(apiKey.key) })).json();
    assert.deepEqual([ledger.data[0].delta, ledger.data[0].balanceAfter, ledger.has_more], [2, 3, true]);
    const rest = await (
      await fetch(`${app.url}/v1/credits/ledger?starting_after=${ledger.data[0].id}`, { headers: bearer(apiKey.key) })
    ).json();
    assert.deepEqual([rest.data.map((entry: { delta: number }) => entry.delta), rest.has_more], [[1], false]);
    const balance = await (await fetch(`${app.url}/v1/credits`, { headers: bearer(key) })).json();
    assert.deepEqual(balance, { object: 'credit_balance', balance: 0 });
  });
});

describe('the response validator of the test support', () => {
  const request = (path: string, method = 'GET') => new Request(`http://127.0.0.1${path}`, { method });
  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

  it('names the route, status and schema error of an answer that breaks the document', async () => {
    const validator = createResponseValidator();
    const answers: Record<string, Response> = {
      '/healthz': json(418, { status: 'ok' }),
      '/readyz': json(200, { status: 'fine' }),
      '/v1/stores': new Response('<p>hi</p>', { status: 200, headers: { 'content-type': 'text/html' } }),
      '/v1/nowhere': json(404, { oops: true }),
    };
    const fetch = validator.wrapFetch((incoming) => answers[new URL(incoming.url).pathname]!);
    for (const path of Object.keys(answers)) await fetch(request(path) as never);
    await assert.rejects(validator.assertNoViolations(), (error: Error) => {
      assert.match(error.message, /GET \/healthz → 418: get \/healthz: status 418 is not documented/);
      assert.match(error.message, /GET \/readyz → 200: get \/readyz 200: .*status/);
      assert.match(error.message, /GET \/v1\/stores → 200: .*content type text\/html is not documented/);
      assert.match(
        error.message,
        /GET \/v1\/nowhere → 404: an undocumented route answered JSON that is not the error envelope/,
      );
      return true;
    });
  });

  it('accepts answers the document promises', async () => {
    const validator = createResponseValidator();
    const fetch = validator.wrapFetch(() => json(200, { status: 'ok' }));
    await fetch(request('/healthz') as never);
    await fetch(request('/healthz', 'HEAD') as never);
    const tooLarge = validator.wrapFetch(() =>
      json(431, {
        error: { type: 'invalid_request_error', code: 'headers_too_large', message: 'Too large.', param: null },
      }),
    );
    await tooLarge(request('/v1/stores') as never);
    await validator.assertNoViolations();
  });
});
