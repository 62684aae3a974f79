/**
 * Routing with fallback across the vendors' engines, each against the fake of its API, configured
 * as docs/operations.md shows: FASHN for try-on with fal as its fallback, Replicate for rooms. A
 * transient failure at FASHN moves the render to fal within the same run (charged once); a final
 * one (its moderation refusal) ends it there. The config is the doc's own JSON, read from the doc,
 * with the keys in the environment as the doc sets them; only the vendors' addresses and poll
 * intervals are the fakes'.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, afterEach, before, describe, it } from 'node:test';
import * as v from 'valibot';
import { loadConfig } from '../config/load.ts';
import falPlugin from '../plugins/renderer-fal/index.ts';
import fashnPlugin from '../plugins/renderer-fashn/index.ts';
import geminiPlugin from '../plugins/renderer-gemini/index.ts';
import replicatePlugin from '../plugins/renderer-replicate/index.ts';
import { FAL_KEY, startFakeFal, type FakeFal } from './support/fake-fal.ts';
import { startFakeFashn, type FakeFashn } from './support/fake-fashn.ts';
import { FAKE_TOKEN as REPLICATE_TOKEN, startFakeReplicate, type FakeReplicate } from './support/fake-replicate.ts';
import { startGenerationApp, type GenerationApp } from './support/generation-app.ts';

const FASHN_KEY = 'fa-test-failover-key';

type DocConfig = {
  render: Record<string, unknown>;
  pluginOptions?: Record<string, Record<string, unknown>>;
};

/** The JSON block of docs/operations.md's "Render engines: routing and fallback" section. */
function documentedConfig(): DocConfig {
  const doc = readFileSync(new URL('../docs/operations.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('## Render engines: routing and fallback'));
  const block = /```json\n([\s\S]*?)\n```/.exec(section)?.[1];
  assert.ok(block, 'the routing section has a JSON config example');
  return JSON.parse(block) as DocConfig;
}

/** The documented keys, set as the doc sets them (each engine reads its own variable). */
const keys = { FASHN_API_KEY: FASHN_KEY, FAL_KEY, REPLICATE_API_TOKEN: REPLICATE_TOKEN };

describe('the built-in engines’ own timeouts', () => {
  it('default to at most the router’s per-engine timeout, as docs/operations.md advises', () => {
    const router = loadConfig({}).render.engineDefaults.timeoutMs;
    for (const plugin of [fashnPlugin, falPlugin, replicatePlugin, geminiPlugin]) {
      const { timeoutMs } = v.parse(plugin.configSchema!, {}) as { timeoutMs: number };
      assert.ok(timeoutMs <= router, `${plugin.name}: ${timeoutMs} ms, the router ${router} ms`);
    }
  });

  it('in the documented config, are at most the router’s for each engine', () => {
    const { render, pluginOptions = {} } = documentedConfig();
    const limits = (render.engineLimits ?? {}) as Record<string, { timeoutMs?: number }>;
    const router = loadConfig({}).render.engineDefaults.timeoutMs;
    for (const [engine, plugin] of [
      ['fashn', fashnPlugin],
      ['fal', falPlugin],
      ['replicate', replicatePlugin],
    ] as const) {
      const own = (v.parse(plugin.configSchema!, pluginOptions[plugin.name] ?? {}) as { timeoutMs: number }).timeoutMs;
      const routed = limits[engine]?.timeoutMs ?? router;
      assert.ok(own <= routed, `${engine}: its own ${own} ms, the router's ${routed} ms`);
    }
  });
});

describe('FASHN for try-on with fal as its fallback, Replicate for rooms (the vendors’ fakes)', () => {
  let g: GenerationApp;
  let fashn: FakeFashn;
  let fal: FakeFal;
  let replicate: FakeReplicate;
  const saved = Object.fromEntries(Object.keys(keys).map((name) => [name, process.env[name]]));

  before(async () => {
    [fashn, fal, replicate] = await Promise.all([startFakeFashn(FASHN_KEY), startFakeFal(), startFakeReplicate()]);
    Object.assign(process.env, keys);
    const documented = documentedConfig();
    const options = documented.pluginOptions ?? {};
    g = await startGenerationApp({
      config: {
        render: { ...documented.render, maxAttempts: 3, retryBaseDelayMs: 20 },
        pluginOptions: {
          ...options,
          'queue-db': { pollIntervalMs: 50 },
          'renderer-fashn': {
            ...options['renderer-fashn'],
            baseUrl: fashn.baseUrl,
            pollIntervalMs: 5,
            outputFormat: 'jpeg',
          },
          'renderer-fal': { ...options['renderer-fal'], baseUrl: fal.baseUrl, pollIntervalMs: 10 },
          'renderer-replicate': { ...options['renderer-replicate'], baseUrl: replicate.baseUrl, pollIntervalMs: 50 },
        },
      },
    });
  });
  afterEach(() => {
    fashn.fault = null;
    fal.fault = null;
    replicate.fault = null;
  });
  after(async () => {
    await g?.close();
    await Promise.all([fashn?.close(), fal?.close(), replicate?.close()]);
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  /** A shop with 3 credits; its generation settled, and the engine that rendered it. */
  async function settle(body: Record<string, unknown> = {}) {
    const { apiKey, organization } = await g.app.tenants.createOrganization({ name: 'Failover', credits: 3 });
    const created = await g.api.post(apiKey.key, g.validBody(body));
    assert.equal(created.status, 202, await created.clone().text());
    const { id } = (await created.json()) as { id: string };
    const generation = await g.api.settled(apiKey.key, id);
    const balance = ((await (await g.api.get(apiKey.key, '/v1/credits')).json()) as { balance: number }).balance;
    const engine = await g.app.container.cradle.persistence.generations.renderEngineOf(organization.id, id);
    return { generation, balance, engine };
  }

  it('renders a try-on with FASHN while it answers', async () => {
    const { generation, balance, engine } = await settle();
    assert.equal(generation.status, 'complete', JSON.stringify(generation.error));
    assert.equal(engine, 'fashn');
    assert.equal(balance, 2);
  });

  it('moves a try-on to fal when FASHN answers 503, charging once', async () => {
    fashn.fault = 'unavailable';
    const submissions = fal.submissions.length;
    const { generation, balance, engine } = await settle();
    assert.equal(generation.status, 'complete', JSON.stringify(generation.error));
    assert.equal(engine, 'fal');
    assert.equal(fal.submissions.length, submissions + 1, 'fal rendered it');
    assert.equal(balance, 2, 'charged once');
  });

  it('moves a try-on to fal when FASHN is rate limited (429)', async () => {
    fashn.fault = 'rate_limited';
    const { generation, engine } = await settle();
    assert.equal(generation.status, 'complete', JSON.stringify(generation.error));
    assert.equal(engine, 'fal');
  });

  it("ends a try-on FASHN's moderation refuses: fal is not asked, the credit comes back", async () => {
    fashn.fault = 'moderation';
    const submissions = fal.submissions.length;
    const { generation, balance } = await settle();
    assert.equal(generation.status, 'failed');
    assert.equal(generation.error.code, 'content_blocked');
    assert.equal(fal.submissions.length, submissions, 'a final failure does not fall through');
    assert.equal(balance, 3);
  });

  it('renders a room with Replicate', async () => {
    const { generation, engine } = await settle({
      mode: 'room-visualizer',
      products: [{ productId: 'sofa-1', productTitle: 'Sofa', imageUrl: `${g.host.url}/products/sofa.png` }],
    });
    assert.equal(generation.status, 'complete', JSON.stringify(generation.error));
    assert.equal(engine, 'replicate');
  });
});
