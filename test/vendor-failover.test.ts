/**
 * Routing with fallback across the vendors' engines, each against the fake of its API, configured
 * as docs/operations.md shows: FASHN for try-on with fal as its fallback, Replicate for rooms. A
 * transient failure at FASHN moves the render to fal within the same run (charged once); a final
 * one (its moderation refusal) ends it there.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { FAL_KEY, startFakeFal, type FakeFal } from './support/fake-fal.ts';
import { startFakeFashn, type FakeFashn } from './support/fake-fashn.ts';
import { FAKE_TOKEN as REPLICATE_TOKEN, startFakeReplicate, type FakeReplicate } from './support/fake-replicate.ts';
import { startGenerationApp, type GenerationApp } from './support/generation-app.ts';

const FASHN_KEY = 'fa-test-failover-key';

describe('FASHN for try-on with fal as its fallback, Replicate for rooms (the vendors’ fakes)', () => {
  let g: GenerationApp;
  let fashn: FakeFashn;
  let fal: FakeFal;
  let replicate: FakeReplicate;

  before(async () => {
    [fashn, fal, replicate] = await Promise.all([startFakeFashn(FASHN_KEY), startFakeFal(), startFakeReplicate()]);
    g = await startGenerationApp({
      config: {
        render: {
          maxAttempts: 3,
          retryBaseDelayMs: 20,
          engines: { 'virtual-try-on': ['fashn', 'fal'], 'room-visualizer': ['replicate'] },
        },
        pluginOptions: {
          'queue-db': { pollIntervalMs: 50 },
          'renderer-fashn': { apiKey: FASHN_KEY, baseUrl: fashn.baseUrl, pollIntervalMs: 5, outputFormat: 'jpeg' },
          'renderer-fal': {
            apiKey: FAL_KEY,
            baseUrl: fal.baseUrl,
            pollIntervalMs: 10,
            models: { 'virtual-try-on': 'fal-ai/fashn/tryon/v1.6' },
          },
          'renderer-replicate': {
            apiKey: REPLICATE_TOKEN,
            baseUrl: replicate.baseUrl,
            pollIntervalMs: 50,
            models: { 'room-visualizer': 'black-forest-labs/flux-kontext-pro' },
          },
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
    await g.close();
    await Promise.all([fashn.close(), fal.close(), replicate.close()]);
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
