import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openApiText } from '../core/http/openapi/document.ts';
import type { OpenApiDocument, Operation, Parameter } from '../core/http/openapi/types.ts';
import { emitEvent } from '../core/services/webhook-delivery.ts';
import { bearer, startTestApp, type TestApp } from './support/app.ts';
import { createResponseValidator } from './support/response-validator.ts';
import { freshAddress, invitedSession, jsonPost, type TestSession } from './support/sessions.ts';

/**
 * Every example of the OpenAPI document, sent to the real service: a reader who pastes one must
 * get the answer the document promises, not a 400. The ids in examples stand for the reader's own
 * data, so each is swapped for one this test made; nothing else is changed.
 */

const document = JSON.parse(openApiText) as OpenApiDocument;
const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;
const origin = 'https://shop.example';

interface Sent {
  label: string;
  operation: Operation;
  url: string;
  init: RequestInit;
}

const parametersOf = (operation: Operation) =>
  (operation.parameters ?? []).filter((parameter): parameter is Parameter => 'name' in parameter);

describe('the examples of the OpenAPI document', () => {
  let app: TestApp;
  let key: string;
  let conversionKey: string;
  let admin: TestSession;
  /** Example id → the id of this test's own resource. */
  const ids = new Map<string, string>();
  /** Path parameters the document gives no example for, by path. */
  const pathValues: Record<string, Record<string, string>> = {};
  /** Required query parameters without an example, by name. */
  const queryValues: Record<string, string> = {};

  before(async () => {
    app = await startTestApp({ config: { trustProxy: true } });
    const created = await app.tenants.createOrganization({ name: 'Examples', credits: 100 });
    const organizationId = created.organization.id;
    key = created.apiKey.key;
    conversionKey = created.conversionKey.key;
    admin = await invitedSession(app, organizationId, 'admin', 'ada@shop.example', 'correct horse battery staple');
    const viewer = await invitedSession(app, organizationId, 'viewer');
    const invitation = await app.container.cradle.accounts.invite(organizationId, {
      email: 'invitee@shop.example',
      role: 'viewer',
    });
    const api = async (path: string, body: unknown) => {
      const response = await fetch(`${app.url}${path}`, jsonPost(body, bearer(key)));
      assert.equal(response.status, 201, await response.clone().text());
      return (await response.json()) as { id: string };
    };
    const endpoint = await api('/v1/webhook-endpoints', { url: `${origin}/hooks`, enabledEvents: ['*'] });
    const widget = await api('/v1/widgets', {
      storeId: created.store.id,
      mode: 'virtual-try-on',
      allowedOrigins: [origin],
    });
    // An event to resend: written as a render would write it, without running one.
    const { ids: idGenerator, config, queue, persistence, cdn } = app.container.cradle;
    const eventId = idGenerator.id('evt_');
    await persistence.transaction((tx) =>
      emitEvent(
        tx,
        { ids: idGenerator, config, queue },
        { id: eventId, organizationId, type: 'generation.completed', body: '{}', createdAt: Date.now() },
      ),
    );
    const cdnKey = parametersOf(document.paths['/cdn/{key}']!.get!).find((parameter) => parameter.name === 'key')!
      .example as string;
    await cdn.put(cdnKey, new Uint8Array([1, 2, 3]), { contentType: 'image/webp', visibility: 'public' });

    ids.set('store_2aXbQ4mR7kP9sT1vW3yZ5cD8', created.store.id);
    ids.set('org_7hJkL2mN4pQ6rS8tU0vW2xY4', organizationId);
    ids.set('whe_2aXbQ4mR7kP9sT1vW3yZ5cD8', endpoint.id);
    ids.set('Xb3kP9sT1vW3yZ5cD8aXbQ4mR7kP9sT1', invitation.token);
    Object.assign(pathValues, {
      '/v1/users/{id}': { id: viewer.userId },
      '/v1/webhook-endpoints/{id}': { id: endpoint.id },
      '/v1/events/{id}/resend': { id: eventId },
      '/v1/widgets/{id}': { id: widget.id },
      '/api/widgets/{widgetId}/generations': { widgetId: widget.id },
    });
    queryValues.storeId = created.store.id;
  });
  after(() => app.close());

  const ownIds = (text: string) =>
    [...ids].reduce((replaced, [example, own]) => replaced.replaceAll(example, own), text);

  /** How the operation's caller authenticates: its first security requirement, as a shop's server or page would. */
  function credentials(operation: Operation, path: string): Record<string, string> {
    const requirement = (operation.security ?? document.security)[0] ?? {};
    if ('secretKey' in requirement) return bearer(key);
    if ('conversionKey' in requirement) return bearer(conversionKey);
    if ('sessionCookie' in requirement) return admin.headers();
    // Keyless: the widget's routes answer pages on its allowed origins; sign-in is limited per address.
    return path.startsWith('/api/widgets/') ? { origin } : { 'x-forwarded-for': freshAddress() };
  }

  /** The requests an operation's examples make: one per request body media type, or one for its parameters' examples. */
  function requestsOf(path: string, method: string, operation: Operation): Sent[] {
    const parameters = parametersOf(operation);
    const examples = parameters.filter((parameter) => parameter.example !== undefined);
    const bodies = Object.entries(operation.requestBody?.content ?? {});
    if (examples.length === 0 && bodies.length === 0) return [];
    const value = (parameter: Parameter) => {
      const example =
        parameter.example ??
        (parameter.in === 'path' ? pathValues[path]?.[parameter.name] : queryValues[parameter.name]);
      assert.ok(example !== undefined, `${method} ${path}: no value for ${parameter.in} parameter ${parameter.name}`);
      return ownIds(Array.isArray(example) ? example.join(',') : String(example));
    };
    let url = path;
    const query = new URLSearchParams();
    const headers: Record<string, string> = credentials(operation, path);
    for (const parameter of parameters) {
      if (parameter.in === 'path')
        url = url.replace(
          `{${parameter.name}}`,
          parameter['x-multi-segment'] ? value(parameter) : encodeURIComponent(value(parameter)),
        );
      else if (parameter.in === 'query' && (parameter.example !== undefined || parameter.required))
        query.set(parameter.name, value(parameter));
      else if (parameter.in === 'header' && parameter.example !== undefined) headers[parameter.name] = value(parameter);
    }
    const target = `${app.url}${url}${query.size ? `?${query}` : ''}`;
    const label = `${method.toUpperCase()} ${path}`;
    if (bodies.length === 0)
      return [{ label, operation, url: target, init: { method: method.toUpperCase(), headers } }];
    return bodies.map(([type, media]) => ({
      label: `${label} (${type})`,
      operation,
      url: target,
      init: {
        method: method.toUpperCase(),
        headers: { ...headers, 'content-type': type },
        body: ownIds(JSON.stringify(media.example)),
      },
    }));
  }

  it('are requests the service accepts, each answered with a success the operation declares', async () => {
    const sent: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of methods) {
        const operation = item[method];
        if (!operation) continue;
        for (const request of requestsOf(path, method, operation)) {
          const abort = new AbortController();
          const response = await fetch(request.url, { ...request.init, signal: abort.signal });
          // A stream stays open: its status and headers are the answer.
          const text = response.headers.get('content-type')?.startsWith('text/event-stream')
            ? (abort.abort(), '')
            : await response.text();
          const declared = Object.keys(request.operation.responses).filter((status) => /^2\d\d$/.test(status));
          assert.ok(
            declared.includes(String(response.status)),
            `${request.label}: its example was answered ${response.status} (declared: ${declared.join(', ')}) ${text.slice(0, 300)}`,
          );
          sent.push(request.label);
        }
      }
    }
    for (const label of [
      'POST /v1/generations (application/json)',
      'POST /api/widgets/{widgetId}/generations (application/json)',
      'GET /cdn/{key}',
      'GET /v1/analytics/daily',
    ]) {
      assert.ok(sent.includes(label), `${label} was sent`);
    }
  });

  it('of parameters and responses fit their own schemas', () => {
    const validator = createResponseValidator();
    let checked = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of methods) {
        const operation = item[method];
        for (const parameter of operation ? parametersOf(operation) : []) {
          if (parameter.example === undefined) continue;
          assert.deepEqual(
            validator.validateAt(parameter.schema, parameter.example),
            [],
            `${method} ${path} ${parameter.name}: its example`,
          );
          checked++;
        }
        for (const [status, response] of Object.entries(operation?.responses ?? {})) {
          for (const [type, media] of Object.entries('content' in response ? (response.content ?? {}) : {})) {
            if (media.example === undefined) continue;
            assert.deepEqual(
              validator.validateAt(media.schema, media.example),
              [],
              `${method} ${path} ${status} ${type}: its example`,
            );
            // An event stream's messages carry events: each `data:` line is one, as webhooks carry it.
            for (const line of type === 'text/event-stream'
              ? String(media.example)
                  .split('\n')
                  .filter((text) => text.startsWith('data: '))
              : []) {
              assert.deepEqual(
                validator.validateAt({ $ref: '#/components/schemas/Event' }, JSON.parse(line.slice('data: '.length))),
                [],
                `${method} ${path} ${status}: its event`,
              );
            }
            checked++;
          }
        }
      }
    }
    assert.ok(checked > 10, 'the document has examples to check');
  });
});
