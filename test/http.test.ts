import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Logger } from '../core/logger.ts';
import { bearer, startTestApp, type TestApp } from './support/app.ts';

async function expectEnvelope(response: Response, status: number, type: string, code?: string) {
  assert.equal(response.status, status);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  const body = await response.json();
  assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message', 'param', 'type']);
  assert.equal(body.error.type, type);
  if (code) assert.equal(body.error.code, code);
  assert.equal(typeof body.error.message, 'string');
  assert.ok(body.error.message.length > 0);
  return body.error;
}

/** Sends raw bytes with a declared length, which fetch will not let us lie about. */
function rawPost(
  url: string,
  headers: Record<string, string>,
  chunks: string[],
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

/** Writes raw bytes on a fresh connection and reads until the server closes it. */
function rawExchange(
  url: string,
  bytes: string,
): Promise<{ status: number; headers: Record<string, string | undefined>; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine?.split(' ')[1]), headers, body });
    });
  });
}

describe('HTTP skeleton', () => {
  let app: TestApp;
  let apiKey: string;
  let conversionKey: string;
  let organizationId: string;
  const logged: Array<Record<string, unknown>> = [];
  const logger: Logger = { info() {}, warn() {}, error: (message, fields) => logged.push({ message, ...fields }) };

  before(async () => {
    app = await startTestApp({ logger });
    const created = await app.tenants.createOrganization({ name: 'Acme', credits: 10 });
    apiKey = created.apiKey.key;
    conversionKey = created.conversionKey.key;
    organizationId = created.organization.id;
  });
  after(() => app.close());

  it('answers /healthz and /readyz', async () => {
    const health = await fetch(`${app.url}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok' });
    const ready = await fetch(`${app.url}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(await ready.json(), { status: 'ready' });
  });

  it('gives every response a request id, keeping a sane one the caller sent', async () => {
    const generated = await fetch(`${app.url}/healthz`);
    assert.match(generated.headers.get('x-request-id') ?? '', /^req_[0-9A-Za-z]{24}$/);
    const kept = await fetch(`${app.url}/healthz`, { headers: { 'x-request-id': 'client-trace-12345' } });
    assert.equal(kept.headers.get('x-request-id'), 'client-trace-12345');
    const replaced = await fetch(`${app.url}/healthz`, { headers: { 'x-request-id': 'bad id with spaces' } });
    assert.match(replaced.headers.get('x-request-id') ?? '', /^req_/);
  });

  describe('authentication on /v1', () => {
    it('refuses a request without a key', async () => {
      const response = await fetch(`${app.url}/v1/stores`);
      assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer/);
      await expectEnvelope(response, 401, 'authentication_error', 'missing_api_key');
    });

    it('refuses a malformed Authorization header', async () => {
      for (const authorization of ['Basic abc', 'Bearer', 'Bearer a b', apiKey]) {
        await expectEnvelope(
          await fetch(`${app.url}/v1/stores`, { headers: { authorization } }),
          401,
          'authentication_error',
          'malformed_authorization',
        );
      }
    });

    it('refuses an unknown key', async () => {
      const response = await fetch(`${app.url}/v1/stores`, { headers: bearer(`visualizer_${'x'.repeat(32)}`) });
      await expectEnvelope(response, 401, 'authentication_error', 'invalid_api_key');
      const foreign = await fetch(`${app.url}/v1/stores`, { headers: bearer('sk_live_something') });
      await expectEnvelope(foreign, 401, 'authentication_error', 'invalid_api_key');
    });

    it('refuses the conversion key', async () => {
      const error = await expectEnvelope(
        await fetch(`${app.url}/v1/stores`, { headers: bearer(conversionKey) }),
        401,
        'authentication_error',
        'invalid_api_key',
      );
      assert.match(error.message, /conversion key/);
    });

    it('refuses a revoked key and accepts a live one', async () => {
      const { key, record } = await app.tenants.createKey(organizationId, 'secret', 'to revoke');
      assert.equal((await fetch(`${app.url}/v1/stores`, { headers: bearer(key) })).status, 200);
      await app.tenants.revokeKey(organizationId, record.id);
      await expectEnvelope(
        await fetch(`${app.url}/v1/stores`, { headers: bearer(key) }),
        401,
        'authentication_error',
        'api_key_revoked',
      );
    });

    it('records when a key was last used', async () => {
      const { key, record } = await app.tenants.createKey(organizationId, 'secret', 'usage');
      await fetch(`${app.url}/v1/stores`, { headers: bearer(key) });
      const listed = await app.tenants.listKeys(organizationId);
      assert.ok(listed.find((item) => item.id === record.id)?.lastUsedAt);
    });
  });

  describe('the error envelope', () => {
    it('covers unknown routes', async () => {
      await expectEnvelope(await fetch(`${app.url}/nope`), 404, 'not_found_error', 'route_not_found');
      await expectEnvelope(
        await fetch(`${app.url}/v1/nope`, { method: 'DELETE', headers: bearer(apiKey) }),
        404,
        'not_found_error',
        'route_not_found',
      );
      const head = await fetch(`${app.url}/nope`, { method: 'HEAD' });
      assert.equal(head.status, 404);
      assert.match(head.headers.get('content-type') ?? '', /^application\/json/);
    });

    it('answers a path with a trailing slash 404, but for the pages that live there', async () => {
      for (const path of ['/v1/generations/', '/v1/stores/', '/healthz/', '/openapi.json/', '/widgets/embed.js/']) {
        await expectEnvelope(
          await fetch(`${app.url}${path}`, { headers: bearer(apiKey) }),
          404,
          'not_found_error',
          'route_not_found',
        );
      }
      assert.equal((await fetch(`${app.url}/healthz/`, { method: 'HEAD' })).status, 404);
      const dashboard = await fetch(`${app.url}/dashboard/`);
      assert.equal(dashboard.status, 200);
      assert.match(dashboard.headers.get('content-type')!, /^text\/html/);
      await dashboard.arrayBuffer();
      const bare = await fetch(`${app.url}/dashboard`, { redirect: 'manual' });
      assert.deepEqual([bare.status, bare.headers.get('location')], [301, 'dashboard/']);
      const reference = await fetch(`${app.url}/docs/`, { redirect: 'manual' });
      assert.deepEqual([reference.status, reference.headers.get('location')], [301, '../docs']);
    });

    it('answers HEAD as the GET of the same path, without a body', async () => {
      // Load balancers' health checks and CDNs ask with HEAD; a catch-all route once took these.
      const health = await fetch(`${app.url}/healthz`, { method: 'HEAD' });
      assert.equal(health.status, 200);
      assert.equal((await health.arrayBuffer()).byteLength, 0);
      const stores = await fetch(`${app.url}/v1/stores`, { method: 'HEAD', headers: bearer(apiKey) });
      assert.equal(stores.status, 200);
      assert.ok(stores.headers.get('x-request-id'));
      assert.equal((await fetch(`${app.url}/v1/stores`, { method: 'HEAD' })).status, 401, 'authenticated like the GET');
    });

    it('covers malformed JSON', async () => {
      const response = await fetch(`${app.url}/v1/stores`, {
        method: 'POST',
        headers: { ...bearer(apiKey), 'content-type': 'application/json' },
        body: '{"name": ',
      });
      await expectEnvelope(response, 400, 'invalid_request_error', 'invalid_json');
    });

    it('covers a body that is not JSON', async () => {
      const response = await fetch(`${app.url}/v1/stores`, {
        method: 'POST',
        headers: { ...bearer(apiKey), 'content-type': 'text/plain' },
        body: 'name=x',
      });
      await expectEnvelope(response, 415, 'invalid_request_error', 'unsupported_media_type');
    });

    it('covers oversized bodies, whether announced or streamed', async () => {
      const big = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) });
      const announced = await fetch(`${app.url}/v1/stores`, {
        method: 'POST',
        headers: { ...bearer(apiKey), 'content-type': 'application/json' },
        body: big,
      });
      await expectEnvelope(announced, 413, 'invalid_request_error', 'body_too_large');
      const streamed = await rawPost(
        `${app.url}/v1/stores`,
        { ...bearer(apiKey), 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        [big.slice(0, 1_000_000), big.slice(1_000_000)],
      );
      assert.equal(streamed.status, 413);
      assert.equal(JSON.parse(streamed.body).error.code, 'body_too_large');
    });

    it('covers invalid fields, naming the field', async () => {
      const response = await fetch(`${app.url}/v1/stores`, {
        method: 'POST',
        headers: { ...bearer(apiKey), 'content-type': 'application/json' },
        body: JSON.stringify({ name: '' }),
      });
      const error = await expectEnvelope(response, 400, 'invalid_request_error', 'parameter_invalid');
      assert.equal(error.param, 'name');
      const extra = await fetch(`${app.url}/v1/stores`, {
        method: 'POST',
        headers: { ...bearer(apiKey), 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'x', bogus: 1 }),
      });
      assert.equal((await expectEnvelope(extra, 400, 'invalid_request_error')).param, 'bogus');
    });

    it('covers requests the HTTP parser rejects, then closes the connection', async () => {
      const cases = [
        { bytes: 'NOT HTTP AT ALL\r\n\r\n', status: 400, code: 'malformed_request' },
        // A DELETE carrying a body with no length: the body reads as the next request line.
        { bytes: `DELETE /v1/stores HTTP/1.1\r\nhost: x\r\n\r\n{"name":"x"}`, status: 400, code: 'malformed_request' },
        {
          bytes: `GET /healthz HTTP/1.1\r\nhost: x\r\nx-big: ${'y'.repeat(20_000)}\r\n\r\n`,
          status: 431,
          code: 'headers_too_large',
        },
        {
          bytes: `POST /v1/stores HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n1;${'e'.repeat(20_000)}\r\n`,
          status: 413,
          code: 'body_too_large',
        },
      ];
      for (const { bytes, status, code } of cases) {
        const answer = await rawExchange(app.url, bytes);
        assert.equal(answer.status, status, bytes.slice(0, 40));
        assert.match(answer.headers['content-type'] ?? '', /^application\/json/);
        assert.equal(answer.headers.connection, 'close');
        assert.match(answer.headers['x-request-id'] ?? '', /^req_/);
        const envelope = JSON.parse(answer.body);
        assert.equal(envelope.error.type, 'invalid_request_error');
        assert.equal(envelope.error.code, code);
        assert.equal(Number(answer.headers['content-length']), Buffer.byteLength(answer.body));
      }
    });

    it('covers a malformed URL', async () => {
      await expectEnvelope(await fetch(`${app.url}/v1/%ZZ`), 400, 'invalid_request_error');
    });

    it('sends X-Content-Type-Options: nosniff with every JSON answer, successes and errors alike', async () => {
      const storeId = (await app.tenants.listStores(organizationId))[0]!.id;
      const widget = await (
        await fetch(`${app.url}/v1/widgets`, {
          method: 'POST',
          headers: { ...bearer(apiKey), 'content-type': 'application/json' },
          body: JSON.stringify({ storeId, mode: 'virtual-try-on', allowedOrigins: ['https://shop.example'] }),
        })
      ).json();
      const origin = { origin: 'https://shop.example' };
      const collect = (body: unknown) =>
        fetch(`${app.url}/api/collect`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain', ...origin },
          body: JSON.stringify(body),
        });
      const answers: Array<[string, Response, number]> = [
        ['/healthz', await fetch(`${app.url}/healthz`), 200],
        ['HEAD /healthz', await fetch(`${app.url}/healthz`, { method: 'HEAD' }), 200],
        ['/v1/stores', await fetch(`${app.url}/v1/stores`, { headers: bearer(apiKey) }), 200],
        ['/v1/stores without a key', await fetch(`${app.url}/v1/stores`), 401],
        [
          'a body not sent as JSON',
          await fetch(`${app.url}/v1/stores`, {
            method: 'POST',
            headers: { ...bearer(apiKey), 'content-type': 'text/plain' },
            body: 'x',
          }),
          415,
        ],
        ['an unknown route', await fetch(`${app.url}/nope`), 404],
        ['a malformed URL', await fetch(`${app.url}/v1/%ZZ`), 400],
        ['the keyless widget', await fetch(`${app.url}/api/widgets/${widget.id}`, { headers: origin }), 200],
        [
          'the keyless widget from another origin',
          await fetch(`${app.url}/api/widgets/${widget.id}`, { headers: { origin: 'https://evil.example' } }),
          403,
        ],
        [
          'a collected conversion',
          await collect({
            type: '$conversion',
            storeId,
            visitorId: 'v-sniff',
            sessionId: 's-sniff',
            props: { orderId: 'o-sniff' },
          }),
          202,
        ],
        ['an invalid collected event', await collect({ type: '$conversion', storeId }), 400],
      ];
      for (const [what, response, status] of answers) {
        assert.equal(response.status, status, what);
        assert.equal(response.headers.get('x-content-type-options'), 'nosniff', what);
        await response.arrayBuffer();
      }
      const rejected = await rawExchange(app.url, 'NOT HTTP AT ALL\r\n\r\n');
      assert.equal(rejected.headers['x-content-type-options'], 'nosniff', "a request node's parser rejects");
    });

    it('repeats a path id in a 404 only when it has the shape of an id the service issues', async () => {
      const issued = `gen_${'A1b2C3d4'.repeat(3)}`;
      const known = (await (await fetch(`${app.url}/v1/generations/${issued}`, { headers: bearer(apiKey) })).json())
        .error;
      assert.deepEqual(
        [known.code, known.message, known.param],
        ['resource_missing', `No such generation: '${issued}'.`, 'id'],
      );
      const planted = [
        'Your%20account%20is%20locked%3B%20call%20%2B1%20555%200100',
        '%3Cscript%3Ealert(1)%3C%2Fscript%3E',
        'gen_short',
        `gen_${'x'.repeat(70)}`,
        'abc%00',
      ];
      for (const text of planted) {
        for (const path of [
          `/v1/generations/${text}`,
          `/v1/webhook-endpoints/${text}`,
          `/v1/events/${text}`,
          `/v1/widgets/${text}`,
          `/api/widgets/${text}`,
        ]) {
          const error = await expectEnvelope(
            await fetch(`${app.url}${path}`, { headers: { ...bearer(apiKey), origin: 'https://shop.example' } }),
            404,
            'not_found_error',
            'resource_missing',
          );
          assert.match(error.message, /^No such [a-z ]+\.$/, `${path}: ${error.message}`);
        }
      }
    });

    it('hides internal errors behind api_error and logs them with the request id', async () => {
      const persistence = app.container.cradle.persistence;
      const original = persistence.stores.list;
      persistence.stores.list = async () => {
        throw new Error('disk on fire at /var/secret/path');
      };
      try {
        const response = await fetch(`${app.url}/v1/stores`, { headers: bearer(apiKey) });
        const error = await expectEnvelope(response, 500, 'api_error', 'internal_error');
        assert.doesNotMatch(error.message, /disk on fire|secret/);
        const requestId = response.headers.get('x-request-id');
        assert.ok(error.message.includes(requestId!));
        assert.ok(
          logged.some((entry) => entry.requestId === requestId && String(entry.error).includes('disk on fire')),
        );
      } finally {
        persistence.stores.list = original;
      }
    });
  });

  describe('stores', () => {
    it('creates and lists stores of the caller only', async () => {
      const created = await fetch(`${app.url}/v1/stores`, {
        method: 'POST',
        headers: { ...bearer(apiKey), 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Outlet', attributionWindowDays: 14 }),
      });
      assert.equal(created.status, 201);
      const store = await created.json();
      assert.match(store.id, /^store_[0-9A-Za-z]{24}$/);
      assert.equal(store.object, 'store');
      assert.equal(store.attributionWindowDays, 14);
      assert.match(store.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

      const other = await app.tenants.createOrganization({ name: 'Other', credits: 0 });
      const mine = await (await fetch(`${app.url}/v1/stores`, { headers: bearer(apiKey) })).json();
      const theirs = await (await fetch(`${app.url}/v1/stores`, { headers: bearer(other.apiKey.key) })).json();
      assert.equal(mine.object, 'list');
      assert.ok(mine.data.some((item: { id: string }) => item.id === store.id));
      assert.deepEqual(
        theirs.data.map((item: { id: string }) => item.id),
        [other.store.id],
      );
    });
  });
});

describe('slow clients', () => {
  let app: TestApp;
  let apiKey: string;
  before(async () => {
    app = await startTestApp({ config: { headersTimeoutMs: 300, requestTimeoutMs: 600 } });
    apiKey = (await app.tenants.createOrganization({ name: 'Slow', credits: 0 })).apiKey.key;
  });
  after(() => app.close());

  it('answers 408 request_timeout in the envelope, and closes, when headers or body do not arrive in time', {
    timeout: 20_000,
  }, async () => {
    const cases = [
      // Headers begun, never finished (a slow-header attack).
      'GET /healthz HTTP/1.1\r\nhost: x\r\nx-slow: 1\r\n',
      // Headers complete (the handler starts reading), the announced body never is.
      `POST /v1/stores HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${apiKey}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"name":`,
    ];
    for (const bytes of cases) {
      const answer = await rawExchange(app.url, bytes);
      assert.equal(answer.status, 408, bytes);
      assert.equal(answer.headers.connection, 'close');
      assert.match(answer.headers['x-request-id'] ?? '', /^req_/);
      assert.deepEqual(JSON.parse(answer.body).error, {
        type: 'invalid_request_error',
        code: 'request_timeout',
        message: 'The request was not received in time.',
        param: null,
      });
    }
  });
});
