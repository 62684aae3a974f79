import dns from 'node:dns';
import { after, before, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import {
  createGuardedClient,
  isForbiddenAddress,
  OutboundError,
  type GuardedClient,
  type OutboundErrorCode,
  type OutboundRequest,
} from '../core/outbound/guarded-client.ts';
import { prepareInputImage } from '../core/imaging/input-images.ts';
import { createMemoryBudget } from '../core/imaging/memory-budget.ts';
import { fetchImage, ImageFetchError, inspectImage } from '../core/outbound/fetch-image.ts';
import { startHttpsServer, testCertificates, type TestHttpsServer } from './support/https-server.ts';
import { damagedJpeg, heicImage, truncatedJpeg } from './support/odd-images.ts';
import { waitFor } from './support/wait-for.ts';

const defaults: OutboundRequest = { timeoutMs: 5000, maxBytes: 1024 * 1024, maxRedirects: 0 };

async function rejectsWith(
  promise: Promise<unknown>,
  code: OutboundErrorCode,
  transient?: boolean,
): Promise<OutboundError> {
  const err = await promise.then(
    () => assert.fail(`expected ${code}, but the request succeeded`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof OutboundError, `expected OutboundError, got ${String(err)}`);
  assert.equal(err.code, code, err.message);
  if (transient !== undefined) assert.equal(err.transient, transient);
  return err;
}

let ca: string;
let server: TestHttpsServer;
const clients: GuardedClient[] = [];

function client(allow: string[]): GuardedClient {
  const c = createGuardedClient({ allow, ca });
  clients.push(c);
  return c;
}

before(async () => {
  ca = (await testCertificates()).caPem;
  server = await startHttpsServer((req, res, body) => {
    const url = new URL(req.url ?? '/', 'https://localhost');
    switch (url.pathname) {
      case '/hello':
        res.writeHead(200, { 'content-type': 'text/plain', 'x-echo-method': req.method ?? '' });
        res.end(`hello ${body.length}`);
        return;
      case '/socket':
        // The client's port identifies the TCP connection, so equal ports mean a reused socket.
        res.end(String(req.socket.remotePort));
        return;
      case '/redirect':
        res.writeHead(Number(url.searchParams.get('code') ?? 302), {
          location: url.searchParams.get('to') ?? '/hello',
        });
        res.end();
        return;
      case '/loop':
        res.writeHead(302, { location: `/loop?n=${Number(url.searchParams.get('n') ?? 0) + 1}` });
        res.end();
        return;
      case '/status':
        res.writeHead(Number(url.searchParams.get('code')));
        res.end('status body');
        return;
      case '/big-declared':
        res.writeHead(Number(url.searchParams.get('code') ?? 200), { 'content-length': '5000' });
        res.end(Buffer.alloc(5000));
        return;
      case '/big-streamed':
        // No Content-Length: chunked encoding, so only counting while streaming can catch it.
        res.writeHead(Number(url.searchParams.get('code') ?? 200), { 'content-type': 'application/octet-stream' });
        for (let i = 0; i < 10; i++) res.write(Buffer.alloc(1000));
        res.end();
        return;
      case '/big-error':
        res.writeHead(500, { 'content-length': String(200 * 1024) });
        res.end(Buffer.alloc(200 * 1024));
        return;
      case '/hang':
        return; // never answers
      default:
        res.writeHead(404);
        res.end('not found');
    }
  });
});

after(async () => {
  for (const c of clients) c.close();
  await server.close();
});

describe('guarded client', () => {
  test('fetches an allowlisted https URL with its body', async () => {
    const res = await client(['localhost']).request(`${server.url}/hello`, {
      ...defaults,
      method: 'POST',
      body: 'abc',
    });
    assert.equal(res.status, 200);
    assert.equal(Buffer.from(res.body).toString(), 'hello 3');
    assert.equal(res.headers['x-echo-method'], 'POST');
    assert.equal(res.url, `${server.url}/hello`);
    assert.ok(res.durationMs >= 0);
  });

  test('refuses loopback when not allowlisted: hostname, IPv4 literal and IPv6 literal', async () => {
    const c = client([]);
    const sent = server.requests.length;
    await rejectsWith(c.request(`${server.url}/hello`, defaults), 'blocked_address', false);
    await rejectsWith(c.request(`https://127.0.0.1:${server.port}/hello`, defaults), 'blocked_address', false);
    await rejectsWith(c.request(`https://[::1]:${server.port}/hello`, defaults), 'blocked_address', false);
    await rejectsWith(c.request('https://[::ffff:127.0.0.1]/', defaults), 'blocked_address', false);
    await rejectsWith(c.request('https://169.254.169.254/latest/meta-data/', defaults), 'blocked_address', false);
    await rejectsWith(c.request('https://10.0.0.1/', defaults), 'blocked_address', false);
    assert.equal(server.requests.length, sent, 'nothing reached the server');
  });

  test('an allowlisted CIDR admits addresses inside it only', async () => {
    const res = await client(['127.0.0.0/8']).request(`https://127.0.0.1:${server.port}/hello`, defaults);
    assert.equal(res.status, 200);
    await rejectsWith(
      client(['::1/128']).request(`https://127.0.0.1:${server.port}/hello`, defaults),
      'blocked_address',
    );
    await rejectsWith(client(['10.0.0.0/8']).request(`${server.url}/hello`, defaults), 'blocked_address');
  });

  test('refuses non-https, invalid URLs and URLs with credentials', async () => {
    const c = client(['localhost']);
    await rejectsWith(c.request(`http://localhost:${server.port}/hello`, defaults), 'not_https', false);
    await rejectsWith(c.request('ftp://example.com/file', defaults), 'not_https', false);
    await rejectsWith(c.request('not a url', defaults), 'invalid_url', false);
    await rejectsWith(c.request(`https://user:pass@localhost:${server.port}/hello`, defaults), 'invalid_url', false);
  });

  test('an entry with a port admits that port only; one without covers every port', async () => {
    const other = await startHttpsServer((_req, res) => {
      res.end('other');
    });
    try {
      const portA = server.port;
      const urlA = `https://127.0.0.1:${portA}/hello`;
      const urlB = `https://127.0.0.1:${other.port}/`;
      const hostA = `https://localhost:${portA}/hello`;
      const hostB = `https://localhost:${other.port}/`;
      const sent = other.requests.length;

      const byAddress = client([`127.0.0.1:${portA}`]);
      assert.equal((await byAddress.request(urlA, defaults)).status, 200);
      const refused = await rejectsWith(byAddress.request(urlB, defaults), 'blocked_address', false);
      assert.match(refused.message, /resolves to 127\.0\.0\.1, a private or reserved address, which is not allowed/);
      // The hostname resolves to loopback too, and the address entry names portA alone.
      assert.equal((await byAddress.request(hostA, defaults)).status, 200);
      await rejectsWith(byAddress.request(hostB, defaults), 'blocked_address', false);

      const byHost = client([`LOCALHOST:${portA}`]);
      assert.equal((await byHost.request(hostA, defaults)).status, 200);
      await rejectsWith(byHost.request(hostB, defaults), 'blocked_address', false);

      const byRange = client([`127.0.0.0/8:${portA}`, `[::1]:${other.port}`]);
      assert.equal((await byRange.request(urlA, defaults)).status, 200);
      await rejectsWith(byRange.request(urlB, defaults), 'blocked_address', false);
      await rejectsWith(
        byRange.request(`https://[::ffff:127.0.0.1]:${other.port}/`, defaults),
        'blocked_address',
        false,
      );
      assert.equal(other.requests.length, sent, 'nothing reached the port no entry covers');

      for (const everyPort of [client(['127.0.0.1']), client(['127.0.0.0/8'])]) {
        assert.equal((await everyPort.request(urlB, defaults)).status, 200);
        assert.equal((await everyPort.request(hostB, defaults)).status, 200);
      }
      assert.equal((await client(['localhost']).request(hostB, defaults)).status, 200);
      // A URL without a port is port 443.
      await rejectsWith(
        client([`localhost:${portA}`]).request('https://localhost/', defaults),
        'blocked_address',
        false,
      );
    } finally {
      await other.close();
    }
  });

  test('refuses a malformed allowlist entry, naming what is wrong', () => {
    assert.throws(() => createGuardedClient({ allow: ['10.0.0.0/33'] }), /not a valid CIDR/);
    assert.throws(() => createGuardedClient({ allow: ['localhost:0'] }), /"localhost:0" has an invalid port/);
    assert.throws(() => createGuardedClient({ allow: ['localhost:https'] }), /has an invalid port/);
    assert.throws(() => createGuardedClient({ allow: ['[::1]8443'] }), /\[IPv6 address or CIDR\]/);
    assert.throws(() => createGuardedClient({ allow: ['[localhost]:8443'] }), /\[IPv6 address or CIDR\]/);
    assert.throws(() => createGuardedClient({ allow: ['host name'] }), /must be a hostname, an IP address or a CIDR/);
  });

  test('follows redirects and re-checks every hop', async () => {
    const c = client(['localhost']);
    const res = await c.request(`${server.url}/redirect?to=/hello`, { ...defaults, maxRedirects: 3 });
    assert.equal(res.status, 200);
    assert.equal(Buffer.from(res.body).toString(), 'hello 0');
    assert.equal(res.url, `${server.url}/hello`);

    // Same server, but reached by an IP that is not allowlisted: the second hop must be refused.
    const sent = server.requests.length;
    const target = `https://127.0.0.1:${server.port}/hello`;
    await rejectsWith(
      c.request(`${server.url}/redirect?to=${encodeURIComponent(target)}`, { ...defaults, maxRedirects: 3 }),
      'blocked_address',
      false,
    );
    assert.deepEqual(
      server.requests.slice(sent).map((r) => r.path),
      [`/redirect?to=${encodeURIComponent(target)}`],
      'the redirect target was never requested',
    );

    const toHttp = `http://localhost:${server.port}/hello`;
    await rejectsWith(
      c.request(`${server.url}/redirect?to=${encodeURIComponent(toHttp)}`, { ...defaults, maxRedirects: 3 }),
      'not_https',
    );
  });

  test('redirects after a POST: 303 continues as GET without the body, 307 repeats the POST', async () => {
    const c = client(['localhost']);
    const post = {
      ...defaults,
      method: 'POST' as const,
      body: 'payload',
      headers: { 'content-type': 'text/plain' },
      maxRedirects: 1,
    };

    let sent = server.requests.length;
    const seeOther = await c.request(`${server.url}/redirect?code=303&to=/hello`, post);
    assert.equal(seeOther.headers['x-echo-method'], 'GET');
    let [, second] = server.requests.slice(sent);
    assert.equal(second?.method, 'GET');
    assert.equal(second?.body.length, 0);
    assert.equal(second?.headers['content-type'], undefined);

    sent = server.requests.length;
    const temporary = await c.request(`${server.url}/redirect?code=307&to=/hello`, post);
    assert.equal(Buffer.from(temporary.body).toString(), 'hello 7');
    [, second] = server.requests.slice(sent);
    assert.equal(second?.method, 'POST');
    assert.equal(second?.body.toString(), 'payload');
  });

  test('credentials are not forwarded to another origin on redirect', async () => {
    const c = client(['localhost', '127.0.0.1']);
    const sent = server.requests.length;
    const target = `https://127.0.0.1:${server.port}/hello`;
    await c.request(`${server.url}/redirect?to=${encodeURIComponent(target)}`, {
      ...defaults,
      headers: { Authorization: 'Bearer secret', 'x-kept': 'yes' },
      maxRedirects: 1,
    });
    const [first, second] = server.requests.slice(sent);
    assert.equal(first?.headers.authorization, 'Bearer secret');
    assert.equal(second?.headers.authorization, undefined);
    assert.equal(second?.headers['x-kept'], 'yes');
  });

  test('maxRedirects 0 returns the 3xx as-is', async () => {
    const res = await client(['localhost']).request(`${server.url}/redirect?to=/hello`, defaults);
    assert.equal(res.status, 302);
    assert.equal(res.headers.location, '/hello');
  });

  test('more redirects than allowed fail with too_many_redirects', async () => {
    const c = client(['localhost']);
    const sent = server.requests.length;
    await rejectsWith(c.request(`${server.url}/loop`, { ...defaults, maxRedirects: 2 }), 'too_many_redirects', false);
    assert.equal(server.requests.length - sent, 3, 'the first request and two followed redirects');
  });

  test('a server that never answers times out', async () => {
    const started = Date.now();
    await rejectsWith(
      client(['localhost']).request(`${server.url}/hang`, { ...defaults, timeoutMs: 300 }),
      'timeout',
      true,
    );
    assert.ok(Date.now() - started < 4000, 'gave up long before the 5 s margin');
  });

  test('a caller abort rejects with the abort reason', async () => {
    const controller = new AbortController();
    const pending = client(['localhost']).request(`${server.url}/hang`, { ...defaults, signal: controller.signal });
    const reason = new Error('caller gave up');
    setImmediate(() => controller.abort(reason));
    await assert.rejects(pending, (err) => err === reason);
  });

  test('bodies over maxBytes fail, by Content-Length and while streaming', async () => {
    const c = client(['localhost']);
    await rejectsWith(c.request(`${server.url}/big-declared`, { ...defaults, maxBytes: 4096 }), 'too_large', false);
    await rejectsWith(c.request(`${server.url}/big-streamed`, { ...defaults, maxBytes: 4096 }), 'too_large', false);
    const exact = await c.request(`${server.url}/big-streamed`, { ...defaults, maxBytes: 10_000 });
    assert.equal(exact.body.length, 10_000);
  });

  test('4xx and 5xx are returned, not thrown', async () => {
    const res = await client(['localhost']).request(`${server.url}/status?code=503`, defaults);
    assert.equal(res.status, 503);
    assert.equal(Buffer.from(res.body).toString(), 'status body');
  });

  test('a 4xx or 5xx with a body over maxBytes is returned with the body cut, declared or streamed', async () => {
    const c = client(['localhost']);
    for (const path of ['/big-declared', '/big-streamed']) {
      const res = await c.request(`${server.url}${path}?code=503`, { ...defaults, maxBytes: 4096 });
      assert.equal(res.status, 503, path);
      assert.equal(res.body.length, 4096, path);
    }
    // An error page is only kept for logs: at most 64 KB of it, whatever maxBytes allows.
    const page = await c.request(`${server.url}/big-error`, defaults);
    assert.equal(page.status, 500);
    assert.equal(page.body.length, 64 * 1024);
  });

  test('requests to one origin reuse a keep-alive connection', async () => {
    const c = client(['localhost']);
    const first = await c.request(`${server.url}/socket`, defaults);
    const second = await c.request(`${server.url}/socket`, defaults);
    assert.equal(Buffer.from(second.body).toString(), Buffer.from(first.body).toString());

    c.close();
    const afterClose = await c.request(`${server.url}/socket`, defaults);
    assert.notEqual(Buffer.from(afterClose.body).toString(), Buffer.from(first.body).toString());
  });

  test('a DNS answer is reused for a few seconds, and every use of it is still checked', async () => {
    const lookup = mock.method(dns.promises, 'lookup');
    try {
      const c = client(['127.0.0.1/32', '::1/128']);
      for (let i = 0; i < 3; i++) assert.equal((await c.request(`${server.url}/hello`, defaults)).status, 200);
      assert.equal(lookup.mock.callCount(), 1, 'one lookup served three requests');
      // A cached answer never skips the guard: a client that does not allow loopback is refused
      // on the second request (answered from its cache) as on the first.
      const strict = client([]);
      await rejectsWith(strict.request(`${server.url}/hello`, defaults), 'blocked_address', false);
      await rejectsWith(strict.request(`${server.url}/hello`, defaults), 'blocked_address', false);
    } finally {
      lookup.mock.restore();
    }
  });

  test('a certificate from an unknown CA fails as a non-transient network error', async () => {
    const untrusting = createGuardedClient({ allow: ['localhost'] });
    clients.push(untrusting);
    await rejectsWith(untrusting.request(`${server.url}/hello`, defaults), 'network', false);
  });

  test('a refused connection is a transient network error', async () => {
    const closed = await startHttpsServer(() => {});
    await closed.close();
    await rejectsWith(client(['localhost']).request(`${closed.url}/`, defaults), 'network', true);
  });

  test('a redirect body that never arrives does not keep its connection open', async () => {
    // Each stalled redirect's server-side socket, until it closes.
    const stalled = new Set<unknown>();
    const host = await startHttpsServer((req, res) => {
      if (req.url === '/hello') return void res.end('hello');
      stalled.add(req.socket);
      req.socket.once('close', () => stalled.delete(req.socket));
      // Declares a small body (which the client drains for reuse) and never sends it.
      res.writeHead(302, { location: req.url === '/loop' ? '/loop' : '/hello', 'content-length': '10' });
      res.flushHeaders();
    });
    try {
      const c = client(['localhost']);
      const res = await c.request(`${host.url}/stall`, { ...defaults, maxRedirects: 3 });
      assert.equal(res.status, 200);
      await waitFor('the followed redirect closed its connection', () => stalled.size === 0, 1000);

      await rejectsWith(c.request(`${host.url}/loop`, { ...defaults, maxRedirects: 2 }), 'too_many_redirects', false);
      await waitFor('every redirect of the refused chain closed its connection', () => stalled.size === 0, 1000);
    } finally {
      await host.close();
    }
  });

  test('a redirect with its whole body keeps its connection for reuse', async () => {
    let connections = 0;
    const host = await startHttpsServer((req, res) => {
      if (req.url === '/moved') {
        res.writeHead(302, { location: '/hello', 'content-length': '5' });
        return void res.end('moved');
      }
      res.end('hello');
    });
    host.server.on('secureConnection', () => connections++);
    try {
      const c = client(['localhost']);
      await c.request(`${host.url}/moved`, { ...defaults, maxRedirects: 1 });
      const opened = connections;
      await c.request(`${host.url}/moved`, { ...defaults, maxRedirects: 1 });
      assert.equal(connections, opened, 'both hops of the second request used pooled connections');
    } finally {
      await host.close();
    }
  });

  test('an agent pushed out of the cache keeps no idle connection, and a busy one closes its own when done', async () => {
    let release = () => {};
    const open = new Set<unknown>();
    const host = await startHttpsServer((req, res) => {
      if (req.url === '/held') release = () => res.end('late');
      else res.end('hello');
    });
    host.server.on('secureConnection', (socket) => {
      open.add(socket);
      socket.once('close', () => open.delete(socket));
    });
    try {
      const c = client(['localhost', '127.0.0.0/8']);
      await c.request(`${host.url}/hello`, defaults);
      const held = c.request(`https://127.0.0.1:${host.port}/held`, defaults);
      await waitFor('the held request arrived', () => host.requests.some((r) => r.path === '/held'), 1000);
      assert.equal(open.size, 2, 'one idle pooled connection, one busy');

      // 256 more origins (loopback addresses nothing listens on, refused at once) push both agents
      // out of the cache of 256.
      const refused = Array.from(
        { length: 256 },
        (_, i) => `https://127.0.${1 + (i >> 7)}.${2 + (i & 127)}:${host.port}/`,
      );
      await Promise.all(refused.map((url) => rejectsWith(c.request(url, defaults), 'network', true)));
      await waitFor('the idle connection closed when its agent left the cache', () => open.size === 1, 1000);

      release();
      assert.equal(Buffer.from((await held).body).toString(), 'late');
      await waitFor('the busy connection closed after its response instead of idling', () => open.size === 0, 1000);
    } finally {
      await host.close();
    }
  });

  test('an unresolvable host is a transient dns_failed', async () => {
    // Generous timeout: where a resolver is configured but unreachable, getaddrinfo takes seconds to give up.
    await rejectsWith(
      client([]).request('https://does-not-exist.invalid/', { ...defaults, timeoutMs: 60_000 }),
      'dns_failed',
      true,
    );
  });
});

describe('isForbiddenAddress', () => {
  const forbidden = [
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '127.0.0.1',
    '127.8.8.8',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '192.0.2.1',
    '240.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd00:ec2::254',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '64:ff9b::a00:1',
    '2002:7f00:1::',
    '2001:db8::1',
    '::127.0.0.1',
    'not an address',
  ];
  const allowed = ['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700::1', '::ffff:8.8.8.8', '64:ff9b::808:808'];
  for (const address of forbidden)
    test(`${address} is forbidden`, () => assert.equal(isForbiddenAddress(address), true));
  for (const address of allowed) test(`${address} is allowed`, () => assert.equal(isForbiddenAddress(address), false));
});

describe('fetchImage', () => {
  let png: Buffer;
  let images: TestHttpsServer;

  before(async () => {
    png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#c33' } })
      .png()
      .toBuffer();
    images = await startHttpsServer((req, res) => {
      switch (req.url) {
        case '/photo.png':
          res.writeHead(200, { 'content-type': 'image/png' });
          res.end(png);
          return;
        case '/text':
          res.writeHead(200, { 'content-type': 'image/png' });
          res.end('this is not an image');
          return;
        case '/huge-503':
          // Over the 10 MB cap, declared by Content-Length.
          res.writeHead(503, { 'content-length': String(11 * 1024 * 1024) });
          res.end(Buffer.alloc(11 * 1024 * 1024));
          return;
        case '/huge-404':
          // Over the 10 MB cap, chunked: only counting while streaming sees it.
          res.writeHead(404, { 'content-type': 'text/html' });
          for (let i = 0; i < 11; i++) res.write(Buffer.alloc(1024 * 1024));
          res.end();
          return;
        default:
          res.writeHead(Number(req.url?.slice(1)) || 404);
          res.end();
      }
    });
  });

  after(() => images.close());

  async function fetchFails(url: string, code: ImageFetchError['code'], transient: boolean): Promise<ImageFetchError> {
    const err = await fetchImage(client(['localhost']), url).then(
      () => assert.fail('expected the fetch to fail'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ImageFetchError, `expected ImageFetchError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    assert.equal(err.transient, transient);
    assert.doesNotMatch(err.message, /\n\s+at /, 'no stack trace in the message');
    return err;
  }

  test('a real PNG comes back with its format and size', async () => {
    const image = await fetchImage(client(['localhost']), `${images.url}/photo.png`);
    assert.equal(image.format, 'png');
    assert.equal(image.width, 40);
    assert.equal(image.height, 30);
    assert.deepEqual(Buffer.from(image.bytes), png);
  });

  test('text bytes are invalid_image', async () => {
    await fetchFails(`${images.url}/text`, 'invalid_image', false);
    await assert.rejects(inspectImage(new TextEncoder().encode('hello')), { code: 'invalid_image' });
  });

  test('404 fails for good, naming the status', async () => {
    const err = await fetchFails(`${images.url}/404`, 'image_fetch_failed', false);
    assert.equal(err.message, 'The image URL answered 404');
  });

  test('503 and 429 fail transiently', async () => {
    await fetchFails(`${images.url}/503`, 'image_fetch_failed', true);
    await fetchFails(`${images.url}/429`, 'image_fetch_failed', true);
  });

  test('an error answer with a body over the byte cap fails as its status, not as too large', async () => {
    const unavailable = await fetchFails(`${images.url}/huge-503`, 'image_fetch_failed', true);
    assert.equal(unavailable.message, 'The image URL answered 503');
    const missing = await fetchFails(`${images.url}/huge-404`, 'image_fetch_failed', false);
    assert.equal(missing.message, 'The image URL answered 404');
  });

  test('a private address fails for good with a clear message', async () => {
    const err = await fetchImage(client([]), `${images.url}/photo.png`).then(
      () => assert.fail('expected a blocked address'),
      (e: unknown) => e as ImageFetchError,
    );
    assert.equal(err.code, 'image_fetch_failed');
    assert.equal(err.transient, false);
    assert.equal(err.message, 'The image host resolves to a private address, which is not allowed');
  });

  test('images larger than the byte cap fail with the cap in the message', async () => {
    const err = await fetchImage(client(['localhost']), `${images.url}/photo.png`, { maxBytes: 16 }).then(
      () => assert.fail('expected too large'),
      (e: unknown) => e as ImageFetchError,
    );
    assert.equal(err.code, 'image_fetch_failed');
    assert.equal(err.message, 'The image is larger than 16 bytes');
  });

  test('a HEIC is refused by its header, naming the format, without decoding', async () => {
    await assert.rejects(inspectImage(await heicImage()), (error: ImageFetchError) => {
      assert.equal(error.code, 'invalid_image');
      assert.equal(error.transient, false);
      assert.match(error.message, /^HEIC images .* are not supported \(expected JPEG, PNG, WebP, GIF, AVIF or TIFF\)$/);
      return true;
    });
  });

  test('a truncated image passes the header check; its pixels fail when the worker prepares it', async () => {
    const truncated = await truncatedJpeg();
    const image = await inspectImage(truncated);
    assert.equal(image.format, 'jpeg');
    await assert.rejects(
      prepareInputImage(image, 1024, createMemoryBudget(512 * 1024 * 1024)),
      /premature end|truncated|VipsJpeg/i,
    );
  });

  test('an image with damaged data that still decodes is accepted, upright', async () => {
    const image = await inspectImage(await damagedJpeg());
    assert.deepEqual([image.format, image.width, image.height], ['jpeg', 800, 1000]);
    await prepareInputImage(image, 1024, createMemoryBudget(512 * 1024 * 1024));
  });

  test('images wider than 12000 pixels are invalid', async () => {
    const wide = await sharp({ create: { width: 12001, height: 1, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    await assert.rejects(inspectImage(wide), { code: 'invalid_image', transient: false });
  });
});
