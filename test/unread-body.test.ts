import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { drainUnreadBody, unreadBodyLimits } from '../core/http/unread-body.ts';
import { bearer, startTestApp, type TestApp } from './support/app.ts';

/**
 * Answers sent before the request body has arrived (a 413 on the announced length, a 401 ahead of
 * the upload) reach clients that write their whole body before reading: the server reads and
 * drops the rest of the body (within bounds) instead of resetting the connection under the answer.
 */
const run = promisify(execFile);
const origin = 'https://shop.example';
const bodySize = 15 * 1024 * 1024;
const attempts = 10;

interface Answer {
  status: number;
  code: string | null;
  failure?: string;
}

/** python's http.client, `attempts` times: it sends the whole body, then reads the answer. */
async function viaPython(
  url: string,
  path: string,
  headers: Record<string, string>,
  size = bodySize,
): Promise<Answer[]> {
  const script = `
import http.client, json, sys
url, path, headers, size, attempts = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
host, port = url.split('//')[1].split(':')
body = b'x' * size
for _ in range(attempts):
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        connection.request('POST', path, body=body, headers=headers)
        response = connection.getresponse()
        envelope = json.loads(response.read())
        print(json.dumps({'status': response.status, 'code': envelope['error']['code']}))
    except Exception as error:
        print(json.dumps({'status': 0, 'code': None, 'failure': type(error).__name__}))
    finally:
        connection.close()
`;
  const { stdout } = await run(
    'python3',
    ['-c', script, url, path, JSON.stringify(headers), String(size), String(attempts)],
    { maxBuffer: 1024 * 1024 },
  );
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Answer);
}

/** A bare socket that writes the whole request, then reads one answer (by its length or chunked end). */
function viaSocket(url: string, head: string, body: Buffer): Promise<Answer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    let settled = false;
    const settle = (answer: Answer) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(answer);
    };
    const parse = () => {
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const headers = text.slice(0, end);
      const length = /^content-length: *(\d+)/im.exec(headers)?.[1];
      let payload = text.slice(end + 4);
      if (length !== undefined && payload.length < Number(length)) return;
      if (length === undefined) {
        if (!payload.endsWith('\r\n0\r\n\r\n')) return;
        payload = payload.replace(/^[0-9a-f]+\r\n/i, '').replace(/\r\n0\r\n\r\n$/, '');
      }
      settle({ status: Number(headers.split(' ')[1]), code: JSON.parse(payload).error.code });
    };
    socket.on('error', (error: NodeJS.ErrnoException) =>
      settle({ status: 0, code: null, failure: error.code ?? error.message }),
    );
    socket.on('close', () => settle({ status: 0, code: null, failure: 'closed before the answer' }));
    socket.write(head);
    socket.write(body, (error) => {
      if (error) return;
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        text += chunk;
        parse();
      });
    });
  });
}

const rawRequest = (path: string, headers: Record<string, string>, length: number) =>
  `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}content-length: ${length}\r\n\r\n`;

async function viaFetch(url: string, headers: Record<string, string>, body: Blob): Promise<Answer> {
  try {
    const response = await fetch(url, { method: 'POST', headers, body });
    return { status: response.status, code: (await response.json()).error.code };
  } catch (error) {
    return { status: 0, code: null, failure: String((error as Error).cause ?? error) };
  }
}

describe('answers sent before the body has arrived', () => {
  let app: TestApp;
  let apiKey: string;
  let routes: Array<{ path: string; headers: Record<string, string> }>;
  const body = Buffer.alloc(bodySize, 'x');

  before(async () => {
    // Every attempt comes from 127.0.0.1 with one key: no rate limit may answer first.
    const generous = { perSecond: 10_000, burst: 10_000 };
    app = await startTestApp({
      config: { rateLimits: { create: generous, read: generous }, widgets: { generationsPerIp: generous } },
    });
    const created = await app.tenants.createOrganization({ name: 'Uploads', credits: 10 });
    apiKey = created.apiKey.key;
    const response = await fetch(`${app.url}/v1/widgets`, {
      method: 'POST',
      headers: { ...bearer(apiKey), 'content-type': 'application/json' },
      body: JSON.stringify({ storeId: created.store.id, mode: 'virtual-try-on', allowedOrigins: [origin] }),
    });
    const widget = await response.json();
    const json = { 'content-type': 'application/json' };
    routes = [
      { path: '/v1/generations', headers: { ...bearer(apiKey), ...json } },
      { path: '/v1/stores', headers: { ...bearer(apiKey), ...json } },
      { path: `/api/widgets/${widget.id}/generations`, headers: { origin, ...json } },
    ];
  });
  after(() => app.close());

  const expect413 = (answers: Answer[], what: string) => {
    assert.equal(answers.length, attempts);
    for (const answer of answers) assert.deepEqual(answer, { status: 413, code: 'body_too_large' }, what);
  };

  it('reach python http.client, which sends a 15 MB body whole before reading the 413, 10 times in 10', async () => {
    for (const { path, headers } of routes) expect413(await viaPython(app.url, path, headers), path);
  });

  it('reach a socket that writes the whole 15 MB request before reading the 413, 10 times in 10', async () => {
    for (const { path, headers } of routes) {
      const answers: Answer[] = [];
      for (let attempt = 0; attempt < attempts; attempt++)
        answers.push(await viaSocket(app.url, rawRequest(path, headers, body.length), body));
      expect413(answers, path);
    }
  });

  it('reach fetch sending a 15 MB body, 10 times in 10', async () => {
    for (const { path, headers } of routes) {
      const answers: Answer[] = [];
      for (let attempt = 0; attempt < attempts; attempt++)
        answers.push(await viaFetch(`${app.url}${path}`, headers, new Blob([body])));
      expect413(answers, path);
    }
  });

  it('reach a client writing a chunked body that passes the limit midway', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    const chunked = Buffer.concat(
      Array.from({ length: 3 }, () =>
        Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]),
      ).concat(Buffer.from('0\r\n\r\n')),
    );
    const head = `POST /v1/stores HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${apiKey}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`;
    for (let attempt = 0; attempt < attempts; attempt++)
      assert.deepEqual(await viaSocket(app.url, head, chunked), { status: 413, code: 'body_too_large' });
  });

  it('reach python for other answers given before the body is read: 401, 415, 404, and with Connection: close', async () => {
    const store = routes[1]!;
    const cases: Array<[Record<string, string>, number, string]> = [
      [{ 'content-type': 'application/json' }, 401, 'missing_api_key'],
      [{ ...bearer(apiKey), 'content-type': 'text/plain' }, 415, 'unsupported_media_type'],
      [{ ...store.headers, connection: 'close' }, 413, 'body_too_large'],
    ];
    for (const [headers, status, code] of cases) {
      for (const answer of await viaPython(app.url, store.path, headers, 4 * 1024 * 1024))
        assert.deepEqual(answer, { status, code }, JSON.stringify(headers));
    }
    for (const answer of await viaPython(app.url, '/v1/nowhere', {}, 4 * 1024 * 1024))
      assert.deepEqual(answer, { status: 404, code: 'route_not_found' });
  });

  it(`stops reading a body over ${unreadBodyLimits.bytes / 1024 / 1024} MiB past the answer and closes the connection`, async () => {
    const { hostname, port } = new URL(app.url);
    // Half-open, as a client still uploading is: the server's FIN after the answer does not end it.
    const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true });
    socket.resume();
    socket.write(rawRequest('/v1/stores', routes[1]!.headers, 1024 * 1024 * 1024));
    const block = Buffer.alloc(1024 * 1024, 'x');
    let written = 0;
    const closed = new Promise<void>((resolve) => socket.on('error', () => resolve()).on('close', () => resolve()));
    const pump = () => {
      while (!socket.destroyed && written < 1024 * 1024 * 1024) {
        written += block.length;
        if (!socket.write(block)) return void socket.once('drain', pump);
      }
    };
    pump();
    await closed;
    assert.ok(written > unreadBodyLimits.bytes, `closed after ${written} bytes`);
    assert.ok(
      written < unreadBodyLimits.bytes + 256 * 1024 * 1024,
      `closed after ${written} bytes, not near the bound`,
    );
  });
});

describe('the drain of an unread body', () => {
  it('closes the connection of a body that trickles past the time bound', async () => {
    const server = createServer((req, res) => {
      drainUnreadBody(req, res, { ...unreadBodyLimits, bytes: 1024 * 1024, ms: 300 });
      res
        .writeHead(413, { 'content-type': 'application/json', connection: 'close' })
        .end('{"error":{"code":"body_too_large"}}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
      socket.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 1000000\r\n\r\n');
      const started = Date.now();
      const trickle = setInterval(() => socket.write('x'), 20);
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk));
      await new Promise((resolve) => socket.on('close', resolve).on('error', resolve));
      clearInterval(trickle);
      const elapsed = Date.now() - started;
      assert.match(answer, /^HTTP\/1\.1 413/);
      assert.ok(elapsed >= 250 && elapsed < 5_000, `closed after ${elapsed} ms`);
    } finally {
      server.close();
    }
  });
});
