/**
 * `visualizer listen` and the event stream it reads (`GET /v1/events/stream`): the real CLI as a
 * child process, a real server, and a plain HTTP receiver on loopback standing in for a
 * developer's local webhook handler.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { readEventStream, type StreamMessage } from '../clients/node/src/event-stream-reader.ts';
import { freePort } from '../core/http/free-port.ts';
import { bearer, startTestApp, type TestApp } from './support/app.ts';
import { bin, cli } from './support/cli.ts';
import { startGenerationApp, type GenerationApp } from './support/generation-app.ts';
import { waitFor } from './support/wait-for.ts';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A plain HTTP receiver on 127.0.0.1 that answers `status` and keeps what it got; it can stop and start again on its port. */
async function startReceiver(port?: number) {
  const received: Received[] = [];
  let server: Server | undefined;
  const state = { status: 200 };
  const chosen = port ?? (await freePort());
  const start = () =>
    new Promise<void>((resolve) => {
      server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          received.push({ path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
          res.writeHead(state.status).end();
        });
      });
      server.listen(chosen, '127.0.0.1', resolve);
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      server!.closeAllConnections();
      server!.close(() => resolve());
    });
  await start();
  return { url: `http://127.0.0.1:${chosen}`, received, state, start, stop };
}

/** The CLI's environment without anything the developer's shell may have set for it. */
function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.VISUALIZER_API_KEY;
  delete env.VISUALIZER_URL;
  return { ...env, ...extra };
}

const children: ChildProcess[] = [];

/** `visualizer listen …` running in the background, its output gathered line by line. */
function startListen(args: string[]) {
  const child = spawn(bin, ['listen', ...args], { env: cliEnv() });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const listener = {
    child,
    exited,
    stdout: () => stdout,
    stderr: () => stderr,
    lines: () => stdout.split('\n'),
    async ready(): Promise<string> {
      await waitFor(
        `listen to connect (stderr: ${stderr})`,
        () => /Webhook signing secret/.test(stdout) || child.exitCode !== null,
      );
      const secret = /Webhook signing secret of this session: (whsec_\S+)/.exec(stdout)?.[1];
      assert.ok(secret, `listen printed its secret\n${stdout}\n${stderr}`);
      return secret;
    },
    /** The line listen printed for an event. */
    async lineFor(eventId: string): Promise<string> {
      await waitFor(`a line for ${eventId} (stdout: ${stdout}, stderr: ${stderr})`, () =>
        listener.lines().some((line) => line.includes(eventId)),
      );
      return listener.lines().find((line) => line.includes(eventId))!;
    },
  };
  return listener;
}

/** An open event stream read message by message. */
async function openStream(url: string, key: string, headers: Record<string, string> = {}, query = '') {
  const controller = new AbortController();
  const response = await fetch(`${url}/v1/events/stream${query}`, {
    headers: { ...bearer(key), ...headers },
    signal: controller.signal,
  });
  if (response.status !== 200) assert.fail(`the stream answered ${response.status}: ${await response.text()}`);
  const messages = readEventStream(response.body!);
  return {
    response,
    async next(): Promise<StreamMessage | null> {
      const { value, done } = await messages.next();
      return done ? null : value;
    },
    close: () => controller.abort(),
  };
}

/** An event as the outbox writes it, without a generation behind it: only the stream reads these. */
function syntheticEvent(
  app: TestApp,
  organizationId: string,
  createdAt = app.container.cradle.clock.now(),
  type = 'generation.completed',
) {
  const id = app.container.cradle.ids.id('evt_');
  const body = JSON.stringify({
    id,
    type,
    createdAt: new Date(createdAt).toISOString(),
    data: { id: 'agen_synthetic', object: 'generation', status: 'complete' },
  });
  return { id, organizationId, type, body, createdAt };
}

describe('visualizer listen', () => {
  let g: GenerationApp;
  let key: string;
  let organizationId: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  before(async () => {
    g = await startGenerationApp();
    const created = await g.app.tenants.createOrganization({ name: 'Listen', credits: 50 });
    key = created.apiKey.key;
    organizationId = created.organization.id;
    receiver = await startReceiver();
  });
  after(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await g.close();
    await receiver.stop();
  });

  const generation = async (fail = false) => {
    const response = await g.api.post(key, g.validBody(fail ? { image: `${g.host.url}/missing` } : {}));
    assert.equal(response.status, 202);
    const { id } = (await response.json()) as { id: string };
    await g.api.settled(key, id);
    return id;
  };
  const forwarded = (path: string) => receiver.received.filter((request) => request.path === path);
  const eventOf = (request: Received) =>
    JSON.parse(request.body) as { id: string; type: string; data: { id: string; status: string } };

  it('forwards a generation.completed, signed with the secret it printed, and prints the status the receiver answered', {
    timeout: 60_000,
  }, async () => {
    receiver.state.status = 202;
    const listen = startListen(['--forward-to', `${receiver.url}/all`, '--api-key', key, '--base-url', g.app.url]);
    const secret = await listen.ready();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);

    const generationId = await generation();
    await waitFor('the completed event at the receiver', () =>
      forwarded('/all').some((request) => eventOf(request).data.id === generationId),
    );
    const request = forwarded('/all').find((item) => eventOf(item).data.id === generationId)!;
    const verified = new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as {
      id: string;
      type: string;
    };
    assert.equal(verified.type, 'generation.completed');
    assert.equal(request.headers['webhook-id'], verified.id);
    assert.equal(request.headers['content-type'], 'application/json');

    // The body is the event exactly as the service's deliveries and GET /v1/events/{id} carry it.
    const stored = (await (await g.api.get(key, `/v1/events/${verified.id}`)).json()) as Record<string, unknown>;
    delete stored.deliveries;
    assert.deepEqual(JSON.parse(request.body), stored);

    const line = await listen.lineFor(verified.id);
    assert.match(line, new RegExp(`generation\\.completed\\s+${verified.id}\\s+202$`));

    listen.child.kill('SIGTERM');
    assert.equal(await listen.exited, 0, listen.stderr());
  });

  it('forwards only the types --events names', { timeout: 60_000 }, async () => {
    receiver.state.status = 200;
    const all = startListen(['--forward-to', `${receiver.url}/every`, '--api-key', key, '--base-url', g.app.url]);
    const failedOnly = startListen([
      '--forward-to',
      `${receiver.url}/failed`,
      '--api-key',
      key,
      '--base-url',
      g.app.url,
      '--events',
      'generation.failed',
    ]);
    await Promise.all([all.ready(), failedOnly.ready()]);
    assert.match(failedOnly.stdout(), /Forwarding generation\.failed events/);

    const completedId = await generation();
    const failedId = await generation(true);
    // Streams send in creation order: once the failed event is through, an earlier completed one would have been too.
    await waitFor(
      'both events at the unfiltered listener',
      () =>
        forwarded('/every').filter((request) => [completedId, failedId].includes(eventOf(request).data.id)).length ===
        2,
    );
    await waitFor('the failed event at the filtered listener', () =>
      forwarded('/failed').some((request) => eventOf(request).data.id === failedId),
    );
    assert.deepEqual(
      forwarded('/failed').map((request) => eventOf(request).type),
      ['generation.failed'],
    );
    assert.equal(forwarded('/failed')[0]!.headers['webhook-id'], eventOf(forwarded('/failed')[0]!).id);

    all.child.kill('SIGINT');
    failedOnly.child.kill('SIGTERM');
    assert.deepEqual(await Promise.all([all.exited, failedOnly.exited]), [0, 0]);
  });

  it('keeps going while the local receiver is down, printing the error, and forwards again once it is back', {
    timeout: 60_000,
  }, async () => {
    const local = await startReceiver();
    const listen = startListen(['--forward-to', `${local.url}/hooks`, '--api-key', key, '--base-url', g.app.url]);
    await listen.ready();
    await local.stop();

    const whileDown = syntheticEvent(g.app, organizationId);
    await g.app.container.cradle.persistence.events.append(whileDown);
    assert.match(
      await listen.lineFor(whileDown.id),
      new RegExp(`generation\\.completed\\s+${whileDown.id}\\s+error: .*ECONNREFUSED`),
    );

    await local.start();
    local.state.status = 204;
    const afterwards = syntheticEvent(g.app, organizationId);
    await g.app.container.cradle.persistence.events.append(afterwards);
    assert.match(await listen.lineFor(afterwards.id), new RegExp(`${afterwards.id}\\s+204$`));
    assert.deepEqual(
      local.received.map((request) => request.headers['webhook-id']),
      [afterwards.id],
    );
    assert.equal(listen.child.exitCode, null, 'still running');

    listen.child.kill('SIGTERM');
    assert.equal(await listen.exited, 0);
    await local.stop();
  });

  it('fails with a clear message and exit 1 on a wrong key, and exit 2 on bad usage', { timeout: 60_000 }, async () => {
    const wrong = await cli(
      ['listen', '--forward-to', `${receiver.url}/x`, '--base-url', g.app.url],
      cliEnv({ VISUALIZER_API_KEY: 'visualizer_notakeyatallnotakeyatallnotakey' }) as Record<string, string>,
    );
    assert.equal(wrong.code, 1, wrong.stderr);
    assert.match(wrong.stderr, /^visualizer listen: 401 authentication_error: /m);
    assert.doesNotMatch(wrong.stdout, /whsec_/, 'no secret is printed for a session that never started');

    const conversionKey = (await g.app.tenants.createOrganization({ name: 'Conversion only', credits: 0 }))
      .conversionKey.key;
    const refused = await cli(
      ['listen', '--forward-to', `${receiver.url}/x`, '--base-url', g.app.url, '--api-key', conversionKey],
      cliEnv() as Record<string, string>,
    );
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(
      refused.stderr,
      /visualizer listen: that is a conversion key \(viz_…\); listen needs a secret API key \(visualizer_…\)\./,
    );

    const unreachable = await cli(
      [
        'listen',
        '--forward-to',
        `${receiver.url}/x`,
        '--base-url',
        `http://127.0.0.1:${await freePort()}`,
        '--api-key',
        key,
      ],
      cliEnv() as Record<string, string>,
    );
    assert.equal(unreachable.code, 1);
    assert.match(unreachable.stderr, /visualizer listen: could not reach http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/);

    const usage: Array<[string[], RegExp]> = [
      [['--api-key', key], /--forward-to is required/],
      [['--forward-to', 'ftp://127.0.0.1/x', '--api-key', key], /--forward-to must be an http:\/\/ or https:\/\/ URL/],
      [['--forward-to', `${receiver.url}/x`], /A secret API key is required/],
      [
        ['--forward-to', `${receiver.url}/x`, '--api-key', key, '--events', 'generation.started'],
        /--events must be a comma-separated list of generation\.completed, generation\.failed, not 'generation\.started'/,
      ],
      [
        ['--forward-to', `${receiver.url}/x`, '--api-key', key, '--secret', 'not-a-secret!'],
        /--secret must be "whsec_" followed by base64/,
      ],
      [
        ['--forward-to', `${receiver.url}/x`, '--api-key', key, '--base-url', 'nonsense'],
        /--base-url must be an http:\/\/ or https:\/\/ URL/,
      ],
    ];
    for (const [args, message] of usage) {
      const result = await cli(['listen', ...args], cliEnv() as Record<string, string>);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message);
      assert.match(result.stderr, /Usage: visualizer listen --forward-to URL/);
    }
  });

  it("signs with a --secret of the developer's own", { timeout: 60_000 }, async () => {
    const secret = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    const listen = startListen([
      '--forward-to',
      `${receiver.url}/own-secret`,
      '--base-url',
      g.app.url,
      '--api-key',
      key,
      '--secret',
      secret,
    ]);
    assert.equal(await listen.ready(), secret);
    const event = syntheticEvent(g.app, organizationId);
    await g.app.container.cradle.persistence.events.append(event);
    await listen.lineFor(event.id);
    const request = forwarded('/own-secret').find((item) => item.headers['webhook-id'] === event.id)!;
    assert.equal(request.body, event.body);
    assert.deepEqual(
      new Webhook(secret).verify(request.body, request.headers as Record<string, string>),
      JSON.parse(event.body),
    );
    listen.child.kill('SIGTERM');
    assert.equal(await listen.exited, 0);
  });
});

describe('GET /v1/events/stream', () => {
  let g: GenerationApp;
  let key: string;
  let organizationId: string;
  before(async () => {
    g = await startGenerationApp({ workers: false });
    const created = await g.app.tenants.createOrganization({ name: 'Stream', credits: 0 });
    key = created.apiKey.key;
    organizationId = created.organization.id;
  });
  after(async () => g.close());
  const append = (event: ReturnType<typeof syntheticEvent>) => g.app.container.cradle.persistence.events.append(event);

  it('sends each event once with its id, type and body, also one that commits after a later one, and resumes after Last-Event-ID', {
    timeout: 60_000,
  }, async () => {
    const before = syntheticEvent(g.app, organizationId);
    await append(before);
    const stream = await openStream(g.app.url, key);
    assert.equal(stream.response.headers.get('content-type'), 'text/event-stream');

    const now = g.app.container.cradle.clock.now();
    const later = syntheticEvent(g.app, organizationId, now);
    await append(later);
    assert.deepEqual(await stream.next(), { id: later.id, event: 'generation.completed', data: later.body });
    // Stamped before `later` but committed after it had been sent, as a slow transaction does.
    const late = syntheticEvent(g.app, organizationId, now - 3_000, 'generation.failed');
    await append(late);
    assert.deepEqual(await stream.next(), { id: late.id, event: 'generation.failed', data: late.body });
    const marker = syntheticEvent(g.app, organizationId);
    await append(marker);
    assert.equal(
      (await stream.next())?.id,
      marker.id,
      'nothing was sent twice, and what was there before the stream opened is not sent',
    );
    stream.close();

    const missed = syntheticEvent(g.app, organizationId);
    await append(missed);
    const resumed = await openStream(g.app.url, key, { 'last-event-id': marker.id });
    assert.equal((await resumed.next())?.id, missed.id);
    const next = syntheticEvent(g.app, organizationId);
    await append(next);
    assert.equal((await resumed.next())?.id, next.id);
    resumed.close();
  });

  it('resumes after a backlog longer than one read, sending every event once and in creation order', {
    timeout: 60_000,
  }, async () => {
    const last = syntheticEvent(g.app, organizationId);
    await append(last);
    const base = g.app.container.cradle.clock.now();
    const backlog = Array.from({ length: 250 }, (_, index) =>
      syntheticEvent(g.app, organizationId, base + 1 + Math.floor(index / 3)),
    );
    // Written in reverse, as if each had committed late.
    for (const event of [...backlog].reverse()) await append(event);
    const resumed = await openStream(g.app.url, key, { 'last-event-id': last.id });
    const received: string[] = [];
    while (received.length < backlog.length) received.push((await resumed.next())!.id!);
    const expected = [...backlog]
      .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((event) => event.id);
    assert.deepEqual(received, expected);
    const marker = syntheticEvent(g.app, organizationId);
    await append(marker);
    assert.equal((await resumed.next())?.id, marker.id, 'nothing of the backlog came twice');
    resumed.close();
  });

  it('filters by types and refuses an unknown type or Last-Event-ID with the error envelope', {
    timeout: 60_000,
  }, async () => {
    const filtered = await openStream(g.app.url, key, {}, '?types=generation.failed');
    await append(syntheticEvent(g.app, organizationId, undefined, 'generation.completed'));
    const failed = syntheticEvent(g.app, organizationId, undefined, 'generation.failed');
    await append(failed);
    assert.equal((await filtered.next())?.id, failed.id);
    filtered.close();

    const unknownType = await fetch(`${g.app.url}/v1/events/stream?types=generation.completed,generation.started`, {
      headers: bearer(key),
    });
    assert.equal(unknownType.status, 400);
    assert.deepEqual((await unknownType.json()).error.param, 'types');
    const unknownEvent = await fetch(`${g.app.url}/v1/events/stream`, {
      headers: { ...bearer(key), 'last-event-id': 'evt_000000000000000000000000' },
    });
    assert.equal(unknownEvent.status, 404);
    assert.deepEqual((await unknownEvent.json()).error, {
      type: 'not_found_error',
      code: 'resource_missing',
      message: "No such event: 'evt_000000000000000000000000'.",
      param: 'Last-Event-ID',
    });
    const noKey = await fetch(`${g.app.url}/v1/events/stream`);
    assert.equal(noKey.status, 401);
    assert.equal((await noKey.json()).error.type, 'authentication_error');
  });

  it('allows 5 streams per API key: the 6th gets 429 until one closes', { timeout: 60_000 }, async () => {
    const { apiKey } = await g.app.tenants.createOrganization({ name: 'Many streams', credits: 0 });
    const streams = await Promise.all(Array.from({ length: 5 }, () => openStream(g.app.url, apiKey.key)));
    const sixth = await fetch(`${g.app.url}/v1/events/stream`, { headers: bearer(apiKey.key) });
    assert.equal(sixth.status, 429);
    const { error } = await sixth.json();
    assert.equal(error.type, 'rate_limit_error');
    assert.equal(error.code, 'too_many_streams');
    assert.match(error.message, /At most 5 event streams/);
    // Another key of another organization is not affected.
    const other = await openStream(g.app.url, key);
    other.close();

    streams[0]!.close();
    let reopened: Response | undefined;
    await waitFor('a stream slot to free up', async () => {
      reopened = await fetch(`${g.app.url}/v1/events/stream`, { headers: bearer(apiKey.key) });
      if (reopened.status === 200) return true;
      await reopened.body?.cancel();
      return false;
    });
    await reopened!.body!.cancel();
    for (const stream of streams.slice(1)) stream.close();
  });
});

describe('event streams and the server', () => {
  it('end when they reach their maximum duration, and listen resumes; a stopping server ends them at once and listen keeps trying', {
    timeout: 90_000,
  }, async () => {
    let offset = 0;
    const clock = { now: () => Date.now() + offset };
    // A shutdown that waited for open streams would wait this long: the test would time out first.
    const app = await startTestApp({ ports: { clock }, config: { shutdownTimeoutMs: 600_000 } });
    const receiver = await startReceiver();
    const { apiKey, organization } = await app.tenants.createOrganization({ name: 'Durations', credits: 0 });
    const listen = startListen([
      '--forward-to',
      `${receiver.url}/hooks`,
      '--api-key',
      apiKey.key,
      '--base-url',
      app.url,
    ]);
    let closed = false;
    try {
      await listen.ready();
      const first = syntheticEvent(app, organization.id);
      await app.container.cradle.persistence.events.append(first);
      await listen.lineFor(first.id);

      offset += 31 * 60_000;
      await waitFor(
        'listen to reconnect after the stream ended',
        () => /the stream ended; reconnecting/.test(listen.stderr()) && /Reconnected/.test(listen.stderr()),
      );
      const second = syntheticEvent(app, organization.id);
      await app.container.cradle.persistence.events.append(second);
      assert.match(await listen.lineFor(second.id), /200$/);
      assert.equal(
        listen.lines().filter((line) => line.includes(first.id)).length,
        1,
        'the resumed stream did not repeat an event',
      );

      const stream = await openStream(app.url, apiKey.key);
      closed = true;
      await app.close();
      assert.equal(await stream.next(), null, 'the open stream ended cleanly when the server stopped');
      await waitFor('listen to notice the server went away', () =>
        /reconnecting in/.test(listen.stderr().split('Reconnected').at(-1)!),
      );
      assert.equal(listen.child.exitCode, null, 'listen keeps running while the service is away');
      listen.child.kill('SIGINT');
      assert.equal(await listen.exited, 0);
    } finally {
      if (listen.child.exitCode === null) listen.child.kill('SIGKILL');
      await receiver.stop();
      if (!closed) await app.close();
    }
  });
});
