import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../config/load.ts';
import { createLogger } from '../core/logger.ts';
import { instrumentHandlers } from '../core/metrics/jobs.ts';
import { cli } from './support/cli.ts';
import { photoJpeg, startGenerationApp, type GenerationApp } from './support/generation-app.ts';
import { parsePrometheus, sampleValue } from './support/prometheus.ts';

type Line = Record<string, unknown> & { level: string; message: string };

/** A logger at `level` whose lines (parsed: each must be one JSON object) land in `lines`. */
function capture(level: 'debug' | 'info' | 'warn' = 'debug') {
  const lines: Line[] = [];
  const logger = createLogger({ level, write: (line) => lines.push(JSON.parse(line)) });
  return { lines, logger };
}

describe('logs', () => {
  let g: GenerationApp;
  let key: string;
  const { lines, logger } = capture('debug');
  before(async () => {
    g = await startGenerationApp({ logger });
    key = (await g.app.tenants.createOrganization({ name: 'Logs', credits: 100 })).apiKey.key;
  });
  after(() => g.close());

  it("puts the request id on the lines a request's handling logs, an outage a service met included", async () => {
    // The private store made unwritable (a file where its directory was): storing an upload fails,
    // and the generation service's 503 is logged with its cause where the request is answered.
    const privateRoot = path.join(g.app.container.cradle.config.dataDir, 'cdn', 'private');
    rmSync(privateRoot, { recursive: true, force: true });
    mkdirSync(path.dirname(privateRoot), { recursive: true });
    writeFileSync(privateRoot, 'not a directory');
    try {
      const requestId = 'logging-test-upload-0001';
      const image = `data:image/jpeg;base64,${photoJpeg.toString('base64')}`;
      const response = await g.api.post(key, g.validBody({ image }), { 'x-request-id': requestId });
      assert.equal(response.status, 503, await response.clone().text());
      assert.equal(response.headers.get('x-request-id'), requestId);
      const during = lines.filter((line) => line.requestId === requestId);
      const serviceLine = during.find((line) => line.code === 'storage_unavailable');
      assert.ok(serviceLine, `the outage's warning carries the request id: ${JSON.stringify(lines.slice(-5))}`);
      assert.equal(serviceLine.level, 'warn');
      assert.match(serviceLine.message, /^The photo could not be stored just now\./);
      assert.match(String(serviceLine.error), /ENOTDIR|EEXIST|not a directory/i);
      const accessLine = during.find((line) => line.message === 'request answered');
      assert.deepEqual(
        { ...accessLine, time: undefined, pid: undefined, hostname: undefined, durationMs: undefined },
        {
          level: 'debug',
          message: 'request answered',
          requestId,
          method: 'POST',
          route: '/v1/generations',
          path: '/v1/generations',
          status: 503,
          time: undefined,
          pid: undefined,
          hostname: undefined,
          durationMs: undefined,
        },
      );
    } finally {
      rmSync(privateRoot, { force: true });
      mkdirSync(privateRoot, { recursive: true });
    }
  });

  it("never logs a widget visitor's id: not the access log of its routes, not its erasure", async () => {
    const created = await g.app.tenants.createOrganization({ name: 'Logs privacy', credits: 1 });
    const visitorId = 'v-logged-nowhere';
    const identified = await fetch(`${g.app.url}/api/collect`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({
        type: '$identify',
        storeId: created.store.id,
        visitorId,
        sessionId: 's-logged-nowhere',
        userId: 'customer-logs',
      }),
    });
    assert.equal(identified.status, 202);
    const headers = { authorization: `Bearer ${created.apiKey.key}`, 'x-request-id': 'logging-test-visitor-0001' };
    assert.equal((await fetch(`${g.app.url}/v1/visitors/${visitorId}`, { headers })).status, 200);
    for (const kind of ['generations', 'identities', 'conversions']) {
      assert.equal(
        (
          await fetch(`${g.app.url}/v1/visitors/${visitorId}/${kind}`, {
            headers: { ...headers, 'x-request-id': `logging-test-visitor-${kind}` },
          })
        ).status,
        200,
      );
    }
    const erasure = await (await fetch(`${g.app.url}/v1/visitors/${visitorId}`, { method: 'DELETE', headers })).json();
    let done = false;
    for (let tries = 0; !done && tries < 400; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      done = lines.some((line) => line.message === 'visitor erasure complete' && line.erasureId === erasure.id);
    }
    assert.ok(done, 'the erasure logs its completion');
    const accessLine = lines.find(
      (line) => line.message === 'request answered' && line.requestId === 'logging-test-visitor-0001',
    );
    assert.equal(accessLine?.path, '/v1/visitors/:visitorId', 'the route, not the path');
    for (const kind of ['generations', 'identities', 'conversions']) {
      const listLine = lines.find(
        (line) => line.message === 'request answered' && line.requestId === `logging-test-visitor-${kind}`,
      );
      assert.equal(listLine?.path, `/v1/visitors/:visitorId/${kind}`);
    }
    const leaks = lines.filter(
      (line) => JSON.stringify(line).includes(visitorId) || JSON.stringify(line).includes('s-logged-nowhere'),
    );
    assert.deepEqual(leaks, []);
  });

  it("keeps concurrent requests' ids apart", async () => {
    const ids = Array.from({ length: 12 }, (_, index) => `logging-test-parallel-${String(index).padStart(4, '0')}`);
    // A symlink loop under each key: reading it fails (ELOOP), and the CDN route logs it.
    const publicRoot = path.join(g.app.container.cradle.config.dataDir, 'cdn', 'public', 'loops');
    mkdirSync(publicRoot, { recursive: true });
    for (const id of ids) symlinkSync(`${id}.jpg`, path.join(publicRoot, `${id}.jpg`));
    try {
      const responses = await Promise.all(
        ids.map((id) => fetch(`${g.app.url}/cdn/loops/${id}.jpg`, { headers: { 'x-request-id': id } })),
      );
      for (const response of responses) assert.equal(response.status, 503);
      for (const id of ids) {
        const failed = lines.filter(
          (line) => line.message === 'could not read a public image' && line.key === `loops/${id}.jpg`,
        );
        assert.deepEqual(
          failed.map((line) => line.requestId),
          [id],
        );
        const answered = lines.filter(
          (line) => line.message === 'request answered' && line.path === `/cdn/loops/${id}.jpg`,
        );
        assert.deepEqual(
          answered.map((line) => line.requestId),
          [id],
        );
      }
    } finally {
      rmSync(publicRoot, { recursive: true, force: true });
    }
  });

  it('gives a request without a sane id one of its own, on its lines and in x-request-id', async () => {
    const response = await fetch(`${g.app.url}/healthz`, { headers: { 'x-request-id': 'bad id' } });
    const requestId = response.headers.get('x-request-id')!;
    assert.match(requestId, /^req_/);
    assert.ok(lines.some((line) => line.message === 'request answered' && line.requestId === requestId));
  });

  it('puts the job id and kind on every line a job handler logs through its context, and none after', async () => {
    const handlers = instrumentHandlers(
      {
        logging_probe: async (_job, context) =>
          void (await new Promise((resolve) => setTimeout(resolve, 5)), context.logger.info('inside the job')),
      },
      { metrics: g.app.container.cradle.metrics, logger, isUnavailable: () => false },
    );
    await handlers.logging_probe!(
      { id: 'job_logging_probe', kind: 'logging_probe', payload: {}, attempts: 1, failures: 0 },
      { signal: new AbortController().signal, completeIn: async () => {} },
    );
    logger.info('after the job');
    const inside = lines.find((line) => line.message === 'inside the job')!;
    assert.equal(inside.jobId, 'job_logging_probe');
    assert.equal(inside.jobKind, 'logging_probe');
    const outside = lines.find((line) => line.message === 'after the job')!;
    assert.equal(outside.jobId, undefined);
    const samples = parsePrometheus(await g.app.container.cradle.metrics.scrape());
    assert.equal(sampleValue(samples, 'job_runs_total', { kind: 'logging_probe', outcome: 'completed' }), 1);
  });
});

describe('log levels', () => {
  it('drops the lines below the level', () => {
    const { lines, logger } = capture('warn');
    logger.debug?.('a debug line');
    logger.info('an info line');
    logger.warn('a warning', { detail: 1 });
    logger.error('an error');
    assert.deepEqual(
      lines.map((line) => [line.level, line.message]),
      [
        ['warn', 'a warning'],
        ['error', 'an error'],
      ],
    );
    assert.equal(lines[0]!.detail, 1);
    assert.match(String(lines[0]!.time), /^\d{4}-\d\d-\d\dT/);
  });

  it('still takes a bare write function, as before pino', () => {
    const written: string[] = [];
    createLogger((line) => written.push(line)).info('plain', { n: 1 });
    assert.equal(written.length, 1);
    assert.deepEqual(
      { ...JSON.parse(written[0]!), time: undefined, pid: undefined, hostname: undefined },
      { level: 'info', message: 'plain', n: 1, time: undefined, pid: undefined, hostname: undefined },
    );
  });

  it('takes the level from LOG_LEVEL, and refuses one it does not know', () => {
    assert.equal(loadConfig({ LOG_LEVEL: 'DEBUG' }).logLevel, 'debug');
    assert.equal(loadConfig({}).logLevel, 'info');
    assert.throws(
      () => loadConfig({ LOG_LEVEL: 'chatty' }),
      (error: unknown) => error instanceof ConfigError && /logLevel \(LOG_LEVEL\)/.test(error.message),
    );
  });

  it("writes logs to stderr only: a --json command's stdout stays one JSON document", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-logging-'));
    try {
      assert.equal((await cli(['migrate'], { VISUALIZER_DATA_DIR: dataDir })).code, 0);
      const debug = await cli(['orgs', 'create', '--name', 'Quiet', '--credits', '5', '--json'], {
        VISUALIZER_DATA_DIR: dataDir,
        LOG_LEVEL: 'debug',
      });
      assert.equal(debug.code, 0, debug.stderr);
      assert.equal(JSON.parse(debug.stdout).credits, 5, 'stdout parses as the one JSON answer');
      const logged = debug.stderr
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      assert.ok(
        logged.some((line) => line.level === 'debug' && line.message === 'plugins started'),
        debug.stderr,
      );
      const quiet = await cli(['orgs', 'list', '--json'], { VISUALIZER_DATA_DIR: dataDir, LOG_LEVEL: 'info' });
      assert.equal(quiet.code, 0, quiet.stderr);
      assert.equal(JSON.parse(quiet.stdout).length, 1);
      assert.doesNotMatch(quiet.stderr, /plugins started/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
