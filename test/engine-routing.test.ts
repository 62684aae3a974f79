/**
 * Render engine routing with fallback (render.engines): engines loaded by module path whose
 * answers the test scripts (test/fixtures/engines). A transient failure moves the render on within
 * the same job run (charged once, no retry spent); a final one ends it; circuits open, let one
 * probe through and close; unsupported modes and sizes, full caps and engine timeouts are passed
 * over; the generation records its engine and its images carry that engine's provenance.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError, loadConfig } from '../config/load.ts';
import type { QueuedJob } from '../core/domain/job.ts';
import { createKernel } from '../core/kernel.ts';
import type { Logger } from '../core/logger.ts';
import { PostponeJob, RetryJob } from '../core/ports/job-queue.ts';
import { RenderError, type RenderEngine } from '../core/ports/render-engine.ts';
import type { Cradle } from '../core/cradle.ts';
import { createMetrics } from '../core/metrics/registry.ts';
import { engineRouter } from '../core/services/engine-router.ts';
import { createMemoryLimits } from '../plugins/limits-memory/index.ts';
import type { ImageClaim } from '../core/ports/content-credentials.ts';
import { slotLeaseMs } from '../core/services/cluster-slots.ts';
import { renderJobKind } from '../core/services/generations.ts';
import { builtinPlugins } from '../plugins/catalogue.ts';
import { script, scripts } from './fixtures/engines/scripted.ts';
import { errorOf } from './support/databases.ts';
import { generationFields, startGenerationApp, type GenerationApp } from './support/generation-app.ts';
import { invitedSession } from './support/sessions.ts';

const engine = (name: string) => path.join(import.meta.dirname, 'fixtures', 'engines', `${name}.ts`);

describe('render engine routing with fallback', () => {
  let g: GenerationApp;
  const lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
  const logger: Logger = {
    debug: (message, fields) => void lines.push({ level: 'debug', message, fields }),
    info: (message, fields) => void lines.push({ level: 'info', message, fields }),
    warn: (message, fields) => void lines.push({ level: 'warn', message, fields }),
    error: (message, fields) => void lines.push({ level: 'error', message, fields }),
  };
  const claims: ImageClaim[] = [];

  before(async () => {
    g = await startGenerationApp({
      workers: false,
      logger,
      config: {
        render: {
          maxAttempts: 3,
          retryBaseDelayMs: 20,
          engines: {
            'virtual-try-on': [engine('alpha'), engine('beta')],
            'room-visualizer': [engine('gamma'), engine('beta')],
          },
          engineLimits: {
            alpha: { timeoutMs: 500, maxConcurrent: 1, circuit: { failures: 3, openMs: 2_500 } },
            beta: { maxConcurrent: 1 },
          },
        },
      },
    });
    const { credentials } = g.app.container.cradle;
    const sign = credentials.sign.bind(credentials);
    credentials.sign = (image, format, claim) => (claims.push(claim), sign(image, format, claim));
  });
  after(() => g.close());
  beforeEach(() => {
    for (const own of scripts.values()) Object.assign(own, { steps: [], otherwise: 'render', calls: 0 });
  });

  const cradle = () => g.app.container.cradle;
  /** A shop with 3 credits and a generation it created (charged 1), not rendered yet. */
  async function generation(body: Record<string, unknown> = {}) {
    const { apiKey, organization } = await g.app.tenants.createOrganization({ name: 'Routed', credits: 3 });
    const response = await g.api.post(apiKey.key, g.validBody(body));
    assert.equal(response.status, 202, await response.clone().text());
    const { id } = (await response.json()) as { id: string };
    const job = (attempts = 1, failures = 0): QueuedJob => ({
      id: `job_${id}`,
      kind: renderJobKind,
      payload: { generationId: id, organizationId: organization.id },
      attempts,
      failures,
    });
    const resource = async () =>
      (await (await g.api.get(apiKey.key, `/v1/generations/${id}`)).json()) as {
        status: string;
        error?: { code: string };
      };
    const balance = async () =>
      ((await (await g.api.get(apiKey.key, '/v1/credits')).json()) as { balance: number }).balance;
    const renderedBy = () => cradle().persistence.generations.renderEngineOf(organization.id, id);
    return { id, organizationId: organization.id, apiKey: apiKey.key, job, resource, balance, renderedBy };
  }
  const circuit = (name: string) =>
    cradle()
      .engineRouter.circuits()
      .find((entry) => entry.engine === name)?.state;

  it('moves a render on from a transient failure within the same run: charged once, no retry spent, the next engine recorded with its provenance', async () => {
    script('alpha').steps.push({ fail: 'renderer_unavailable' });
    const made = await generation();
    assert.equal(await cradle().renderGeneration(made.job()), 'completed', 'completed in the first run, not retried');
    assert.deepEqual([script('alpha').calls, script('beta').calls], [1, 1]);
    assert.equal((await made.resource()).status, 'complete');
    assert.equal(await made.balance(), 2, 'charged once');
    assert.equal(await made.renderedBy(), 'beta');
    const signed = claims.filter((claim) => claim.generationId === made.id);
    assert.equal(signed.length, 7, 'the original and six variants');
    assert.ok(
      signed.every(
        (claim) =>
          claim.engine === 'beta' &&
          claim.action === 'c2pa.edited' &&
          claim.digitalSourceType === 'compositeWithTrainedAlgorithmicMedia',
      ),
      "every image states beta's provenance",
    );
    assert.ok(
      lines.some(
        (line) => line.message === 'render engine failed; trying the next engine' && line.fields?.engine === 'alpha',
      ),
    );
  });

  it('renders with the first engine when it answers, and records it', async () => {
    const made = await generation();
    assert.equal(await cradle().renderGeneration(made.job()), 'completed');
    assert.deepEqual([script('alpha').calls, script('beta').calls], [1, 0]);
    assert.equal(await made.renderedBy(), 'alpha');
    assert.ok(
      claims
        .filter((claim) => claim.generationId === made.id)
        .every((claim) => claim.engine === 'alpha' && claim.action === 'c2pa.created'),
      'the default provenance',
    );
  });

  it('does not fall through on a final failure: the generation fails and is refunded, the next engine never asked', async () => {
    script('alpha').steps.push({ fail: 'content_blocked' });
    const made = await generation();
    assert.equal(await cradle().renderGeneration(made.job()), 'failed');
    assert.deepEqual([script('alpha').calls, script('beta').calls], [1, 0]);
    assert.equal((await made.resource()).error?.code, 'content_blocked');
    assert.equal(await made.balance(), 3, 'refunded');
    assert.equal(await made.renderedBy(), null);
  });

  it('moves on when an engine passes its own timeout (render.engineLimits.alpha.timeoutMs)', async () => {
    script('alpha').steps.push('hang');
    const made = await generation();
    const started = Date.now();
    assert.equal(await cradle().renderGeneration(made.job()), 'completed');
    assert.ok(Date.now() - started >= 450, 'alpha was given its 500 ms');
    assert.deepEqual([script('alpha').calls, script('beta').calls], [1, 1]);
    assert.equal(await made.renderedBy(), 'beta');
  });

  it('retries the job (one attempt spent) when every engine failed transiently, then renders', async () => {
    script('alpha').steps.push({ fail: 'renderer_unavailable' });
    script('beta').steps.push({ fail: 'render_timeout' });
    const made = await generation();
    await assert.rejects(cradle().renderGeneration(made.job()), (error: unknown) => error instanceof RetryJob);
    assert.equal((await made.resource()).status, 'processing');
    assert.equal(await cradle().renderGeneration(made.job(2, 1)), 'completed');
    assert.equal(await made.balance(), 2, 'charged once over both runs');
    assert.equal(await made.renderedBy(), 'alpha');
  });

  it("waits at least the last vendor's Retry-After before the next attempt, bounded at five minutes", async () => {
    script('alpha').steps.push({ fail: 'renderer_unavailable' });
    script('beta').steps.push({ fail: 'renderer_unavailable', retryAfterMs: 7_000 });
    const made = await generation();
    await assert.rejects(
      cradle().renderGeneration(made.job()),
      (error: unknown) => error instanceof RetryJob && error.delayMs === 7_000,
    );
    script('alpha').steps.push({ fail: 'renderer_unavailable' });
    script('beta').steps.push({ fail: 'renderer_unavailable', retryAfterMs: 3_600_000 });
    await assert.rejects(
      cradle().renderGeneration(made.job(2, 1)),
      (error: unknown) => error instanceof RetryJob && error.delayMs === 300_000,
    );
    // Rendered at last, which closes the count of alpha's failures for the circuit tests below.
    assert.equal(await cradle().renderGeneration(made.job(3, 2)), 'completed');
  });

  it('skips an engine that does not render the mode or the size, saying why once', async () => {
    const room = await generation({ mode: 'room-visualizer' });
    assert.equal(await cradle().renderGeneration(room.job()), 'completed');
    assert.equal(script('gamma').calls, 0, 'gamma renders try-on only');
    assert.equal(await room.renderedBy(), 'beta');
    const again = await generation({ mode: 'room-visualizer' });
    assert.equal(await cradle().renderGeneration(again.job()), 'completed');
    const told = lines.filter(
      (line) =>
        line.message === 'render engine passed over' &&
        line.fields?.engine === 'gamma' &&
        line.fields.reason === 'it does not render room-visualizer',
    );
    assert.equal(told.length, 1, 'logged once per reason');
    assert.equal(told[0]!.level, 'info');
  });

  it('passes over an engine whose cluster-wide cap is full, and postpones the job when every engine is', async () => {
    const { limits } = cradle();
    const alphaSlot = await limits.concurrency('render-engine', 1, slotLeaseMs).tryAcquire('alpha');
    assert.ok(alphaSlot);
    try {
      const made = await generation();
      assert.equal(await cradle().renderGeneration(made.job()), 'completed');
      assert.deepEqual([script('alpha').calls, script('beta').calls], [0, 1], 'alpha was not called');
      const betaSlot = await limits.concurrency('render-engine', 1, slotLeaseMs).tryAcquire('beta');
      try {
        const waiting = await generation();
        await assert.rejects(
          cradle().renderGeneration(waiting.job()),
          (error: unknown) => error instanceof PostponeJob,
        );
        assert.equal((await waiting.resource()).status, 'processing');
        assert.deepEqual([script('alpha').calls, script('beta').calls], [0, 1]);
      } finally {
        await betaSlot!.release();
      }
    } finally {
      await alphaSlot.release();
    }
  });

  it('opens a circuit after consecutive transient failures, lets one probe through half-open, and closes when it renders', async () => {
    assert.equal(circuit('alpha'), 'closed');
    script('alpha').otherwise = { fail: 'renderer_unavailable' };
    for (let n = 0; n < 3; n++) {
      const made = await generation();
      assert.equal(await cradle().renderGeneration(made.job()), 'completed');
      assert.equal(await made.renderedBy(), 'beta');
    }
    assert.equal(circuit('alpha'), 'open');
    assert.ok(lines.some((line) => line.message === 'render engine circuit opened' && line.fields?.engine === 'alpha'));
    const whileOpen = await generation();
    assert.equal(await cradle().renderGeneration(whileOpen.job()), 'completed');
    assert.equal(script('alpha').calls, 3, 'an open circuit is not called');
    assert.match(await cradle().metrics.scrape(), /render_engine_circuit_state\{engine="alpha"\} 2/);

    await sleep(2_600);
    assert.equal(circuit('alpha'), 'half-open');
    assert.match(await cradle().metrics.scrape(), /render_engine_circuit_state\{engine="alpha"\} 1/);
    // Two renders at once: one probes alpha (slowly), the other goes to beta.
    script('alpha').steps.push({ renderAfterMs: 300 });
    const [first, second] = [await generation(), await generation()];
    const outcomes = await Promise.all([
      cradle().renderGeneration(first.job()),
      cradle().renderGeneration(second.job()),
    ]);
    assert.deepEqual(outcomes, ['completed', 'completed']);
    assert.equal(script('alpha').calls, 4, 'exactly one probe');
    assert.deepEqual([await first.renderedBy(), await second.renderedBy()].sort(), ['alpha', 'beta']);
    assert.equal(circuit('alpha'), 'closed', 'the probe rendered');
    assert.match(await cradle().metrics.scrape(), /render_engine_circuit_state\{engine="alpha"\} 0/);
  });

  it('reopens the circuit when its probe fails', async () => {
    script('alpha').otherwise = { fail: 'renderer_unavailable' };
    for (let n = 0; n < 3; n++) await cradle().renderGeneration((await generation()).job());
    assert.equal(circuit('alpha'), 'open');
    await sleep(2_600);
    const probe = await generation();
    assert.equal(await cradle().renderGeneration(probe.job()), 'completed');
    assert.equal(script('alpha').calls, 4, 'the probe');
    assert.equal(circuit('alpha'), 'open', 'open again');
    await sleep(2_600);
    script('alpha').otherwise = 'render';
    await cradle().renderGeneration((await generation()).job());
    assert.equal(circuit('alpha'), 'closed');
  });

  it("shows the engine on the dashboard's generation page (its own route, for a session), never in the API's resource", async () => {
    script('alpha').steps.push({ fail: 'renderer_unavailable' });
    const made = await generation();
    await cradle().renderGeneration(made.job());
    const own = await invitedSession(g.app, made.organizationId, 'viewer');
    const route = `${g.app.url}/dashboard/generations/${made.id}/engine`;
    const shown = await fetch(route, { headers: { cookie: own.cookie } });
    assert.equal(shown.status, 200);
    assert.match(shown.headers.get('content-type')!, /^text\/plain/);
    assert.equal(await shown.text(), 'beta');
    const stranger = await invitedSession(
      g.app,
      (await g.app.tenants.createOrganization({ name: 'Stranger', credits: 0 })).organization.id,
      'admin',
    );
    assert.equal(
      (await fetch(route, { headers: { cookie: stranger.cookie } })).status,
      204,
      "another organization's generation shows none",
    );
    const keyed = await fetch(route, { headers: { authorization: `Bearer ${made.apiKey}` } });
    assert.equal((await errorOf(keyed, 403)).code, 'session_required');
    const resource = (await made.resource()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(resource).sort(), generationFields, "the spec's fields only");
    assert.ok(!JSON.stringify(resource).includes('beta'));
  });

  it('counts and times every engine call by engine and outcome', async () => {
    const text = await cradle().metrics.scrape();
    for (const [name, outcome] of [
      ['alpha', 'ok'],
      ['alpha', 'transient'],
      ['alpha', 'final'],
      ['alpha', 'skipped'],
      ['beta', 'ok'],
      ['beta', 'transient'],
      ['gamma', 'skipped'],
    ]) {
      assert.match(
        text,
        new RegExp(`render_engine_calls_total\\{engine="${name}",outcome="${outcome}"\\} [1-9]`),
        `${name} ${outcome}`,
      );
    }
    assert.match(text, /render_engine_call_duration_seconds_count\{engine="alpha",outcome="ok"\} [1-9]/);
    assert.match(text, /render_engine_call_duration_seconds_count\{engine="beta",outcome="transient"\} [1-9]/);
  });
});

describe('render engine configuration', () => {
  it('routes every mode to plugins.renderer when render.engines is unset', () => {
    const config = loadConfig({});
    assert.equal(config.plugins.renderer, 'mock');
    assert.deepEqual(config.render.engines, { 'virtual-try-on': ['mock'], 'room-visualizer': ['mock'] });
    assert.deepEqual(loadConfig({ VISUALIZER_RENDERER: 'gemini' }).render.engines, {
      'virtual-try-on': ['gemini'],
      'room-visualizer': ['gemini'],
    });
  });

  it('reads VISUALIZER_RENDERER as a list for both modes, and the per-mode variables over it', () => {
    const both = loadConfig({ VISUALIZER_RENDERER: 'fashn, fal' });
    assert.deepEqual(both.render.engines, { 'virtual-try-on': ['fashn', 'fal'], 'room-visualizer': ['fashn', 'fal'] });
    assert.equal(both.plugins.renderer, 'fashn');
    const apart = loadConfig({ VISUALIZER_RENDERER_TRY_ON: 'fashn,fal', VISUALIZER_RENDERER_ROOM: 'replicate' });
    assert.deepEqual(apart.render.engines, { 'virtual-try-on': ['fashn', 'fal'], 'room-visualizer': ['replicate'] });
    assert.equal(
      apart.plugins.renderer,
      'fashn',
      'the renderer port is the first engine routed, so mock is not loaded',
    );
    const overridden = loadConfig({ VISUALIZER_RENDERER: 'gemini', VISUALIZER_RENDERER_ROOM: 'replicate' });
    assert.deepEqual(overridden.render.engines, { 'virtual-try-on': ['gemini'], 'room-visualizer': ['replicate'] });
  });

  it('refuses an empty or repeating list, naming the field and the variable', () => {
    assert.throws(
      () => loadConfig({ VISUALIZER_RENDERER_TRY_ON: ' , ' }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /render\.engines\.virtual-try-on \(VISUALIZER_RENDERER_TRY_ON\): must name at least one engine/.test(
          error.message,
        ),
    );
    assert.throws(
      () => loadConfig({}, { render: { engines: { 'room-visualizer': ['fal', 'fal'] } } }),
      /render\.engines\.room-visualizer \(config\): names an engine twice/,
    );
    assert.throws(
      () => loadConfig({}, { render: { engineLimits: { fal: { timeoutMs: 0 } } } }),
      /render\.engineLimits\.fal\.timeoutMs/,
    );
    assert.throws(
      () => loadConfig({}, { render: { engines: { 'virtual-try-on': 'fal' } } }),
      /render\.engines\.virtual-try-on/,
    );
  });

  it('refuses at startup engine limits for an engine no route names, and a route to a plugin that is not an engine', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-routes-'));
    after(() => rmSync(dataDir, { recursive: true, force: true }));
    const start = (overrides: Record<string, unknown>) =>
      createKernel(loadConfig({ VISUALIZER_DATA_DIR: dataDir, LOG_LEVEL: 'error' }, overrides), {
        catalogue: builtinPlugins,
      });
    await assert.rejects(
      start({ render: { engineLimits: { fashn: { maxConcurrent: 2 } } } }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /render\.engineLimits: 'fashn' names no engine render\.engines routes \(mock\)/.test(error.message),
    );
    // A choice names a plugin within its port: `local` is the cdn's, not a renderer.
    await assert.rejects(
      start({ render: { engines: { 'room-visualizer': ['mock', 'local'] } } }),
      /render\.engines\.room-visualizer: cannot load plugin 'local' \(no built-in renderer plugin is called that; the built-ins are mock, gemini, /,
    );
    await assert.rejects(
      start({ render: { engines: { 'room-visualizer': ['mock', './no/such/engine.ts'] } } }),
      /render\.engines\.room-visualizer: cannot load plugin '\.\/no\/such\/engine\.ts'/,
    );
  });
});

describe('the engine router on its own', () => {
  const image = new Uint8Array([1, 2, 3]);
  const calls: string[] = [];
  const engineNamed = (name: string, supports?: RenderEngine['supports']): RenderEngine => ({
    name,
    supports,
    render: async () => (calls.push(name), { image, contentType: 'image/png' }),
  });
  const routed = (engine: RenderEngine) => ({
    engine,
    timeoutMs: 1_000,
    maxConcurrent: 2,
    circuit: { failures: 2, openMs: 1_000 },
  });
  const small = engineNamed('small', { sizes: ['1K', '2K'] });
  const lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
  const logger: Logger = {
    info: (message, fields) => void lines.push({ level: 'info', message, fields }),
    warn: (message, fields) => void lines.push({ level: 'warn', message, fields }),
    error: (message, fields) => void lines.push({ level: 'error', message, fields }),
  };
  const clock = { now: Date.now };
  const metrics = createMetrics({ persistence: {} as never, queue: {} as never, logger });
  const router = engineRouter({
    renderRoutes: { 'virtual-try-on': [routed(small), routed(engineNamed('any'))], 'room-visualizer': [routed(small)] },
    config: loadConfig({}),
    limits: createMemoryLimits(),
    metrics,
    clock,
    logger,
  } as unknown as Cradle);
  const call = (engine: RenderEngine, signal: AbortSignal) =>
    engine.render({ mode: 'virtual-try-on', imageSize: '4K', photo: image, products: [], hint: null, signal });

  it('passes over an engine that does not render the size, saying why', async () => {
    const run = await router.begin({ mode: 'virtual-try-on', imageSize: '4K' }, { attempts: 1, failures: 0 });
    const { engine } = await run.render(call);
    await run.release();
    assert.equal(engine.name, 'any');
    assert.deepEqual(calls, ['any']);
    assert.ok(
      lines.some(
        (line) =>
          line.message === 'render engine passed over' &&
          line.fields?.engine === 'small' &&
          line.fields.reason === 'it does not render 4K',
      ),
    );
    assert.match(
      await metrics.registry.getSingleMetricAsString('render_engine_calls_total'),
      /engine="small",outcome="skipped"\} 1/,
    );
  });

  it('fails the render, finally, when no engine of the mode renders its size', async () => {
    const run = await router.begin({ mode: 'room-visualizer', imageSize: '4K' }, { attempts: 1, failures: 0 });
    await assert.rejects(
      run.render(call),
      (error: unknown) => error instanceof RenderError && error.code === 'render_failed' && !error.transient,
    );
    await run.release();
    assert.ok(
      lines.some(
        (line) =>
          line.level === 'error' && line.message === 'no render engine configured for this mode renders this size',
      ),
    );
  });
});
