/**
 * The cluster-wide caps as the workers meet them: a render or a webhook delivery that finds every
 * slot of its cap taken is postponed (it waits in the queue, not in a worker, and spends none of
 * its retries or attempts), for longer each time it is, and runs once a slot is free. The slots here are taken through the
 * same `limits` port another process would take them through.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { QueuedJob } from '../core/domain/job.ts';
import { PostponeJob } from '../core/ports/job-queue.ts';
import type { Slot } from '../core/ports/limits.ts';
import { slotLeaseMs } from '../core/services/cluster-slots.ts';
import { renderJobKind } from '../core/services/generations.ts';
import { deliverJobKind } from '../core/services/webhook-delivery.ts';
import { startGenerationApp, type GenerationApp } from './support/generation-app.ts';
import { startHttpsServer, type TestHttpsServer } from './support/https-server.ts';

describe('cluster-wide caps postpone work rather than block a worker', () => {
  let g: GenerationApp;
  let receiver: TestHttpsServer;
  let apiKey: string;
  let organizationId: string;

  before(async () => {
    receiver = await startHttpsServer((_req, res) => void res.writeHead(204).end());
    g = await startGenerationApp({
      workers: false,
      config: {
        render: { maxAttempts: 3, retryBaseDelayMs: 20, maxConcurrentEngineCalls: 1 },
        webhooks: { maxConcurrentPerEndpoint: 2 },
      },
    });
    const created = await g.app.tenants.createOrganization({ name: 'Caps', credits: 100 });
    apiKey = created.apiKey.key;
    organizationId = created.organization.id;
  });
  after(async () => {
    await g.close();
    await receiver.close();
  });

  const cradle = () => g.app.container.cradle;
  const renderJob = (generationId: string, attempts: number): QueuedJob => ({
    id: `job_${generationId}_${attempts}`,
    kind: renderJobKind,
    payload: { generationId, organizationId },
    attempts,
    failures: 0,
  });
  const create = async () => (await (await g.api.post(apiKey, g.validBody())).json()).id as string;
  const status = async (id: string) =>
    (await (await g.api.get(apiKey, `/v1/generations/${id}`)).json()).status as string;
  /** Takes `count` slots of a cap, as workers elsewhere would hold them. */
  async function hold(name: string, limit: number, key: string, count: number): Promise<Slot[]> {
    const cap = cradle().limits.concurrency(name, limit, slotLeaseMs);
    const slots = [];
    for (let n = 0; n < count; n++) slots.push((await cap.tryAcquire(key))!);
    assert.ok(slots.every(Boolean));
    return slots;
  }

  it('postpones a render while every engine slot is taken, without calling the engine, then renders', async () => {
    const { renderer, config } = cradle();
    let calls = 0;
    const render = renderer.render.bind(renderer);
    renderer.render = (request) => {
      calls += 1;
      return render(request);
    };
    try {
      const id = await create();
      const [slot] = await hold('render-engine', 1, config.plugins.renderer, 1);
      await assert.rejects(
        cradle().renderGeneration(renderJob(id, 1)),
        (error: unknown) => error instanceof PostponeJob,
      );
      assert.equal(calls, 0, 'the engine was not called');
      assert.equal(await status(id), 'processing');

      await slot!.release();
      await cradle().renderGeneration(renderJob(id, 2));
      assert.equal(calls, 1);
      assert.equal(await status(id), 'complete');
      // The render gave its slot back.
      const [again] = await hold('render-engine', 1, config.plugins.renderer, 1);
      await again!.release();
    } finally {
      renderer.render = render;
    }
  });

  it("postpones a delivery while its endpoint's slots are taken, recording no attempt, then delivers", async () => {
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const endpointResponse = await fetch(`${g.app.url}/v1/webhook-endpoints`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: `${receiver.url}/hook`, enabledEvents: ['generation.completed'] }),
    });
    assert.equal(endpointResponse.status, 201, await endpointResponse.clone().text());
    const endpoint = (await endpointResponse.json()) as { id: string };
    const id = await create();
    await cradle().renderGeneration(renderJob(id, 1));
    const events = (await (await g.api.get(apiKey, '/v1/events?limit=100')).json()) as {
      data: Array<{ id: string; type: string; data: { id: string } }>;
    };
    const event = events.data.find(
      (candidate) => candidate.type === 'generation.completed' && candidate.data.id === id,
    )!;
    assert.ok(event, 'the completion event exists');
    const [delivery] = await cradle().persistence.deliveries.forEvent(event.id);
    assert.ok(delivery);
    const job: QueuedJob = {
      id: 'job_delivery',
      kind: deliverJobKind,
      payload: { deliveryId: delivery.id },
      attempts: 1,
      failures: 0,
    };
    const context = { signal: new AbortController().signal, completeIn: async () => {} };

    const slots = await hold('webhook-endpoint', 2, endpoint.id, 2);
    /** The delay a run of the job is postponed by, the slots being taken. */
    const postponedBy = async (run: Pick<QueuedJob, 'attempts' | 'failures'>) => {
      const error = await cradle()
        .deliverWebhook({ ...job, ...run }, context)
        .then(
          () => assert.fail('not postponed'),
          (error: unknown) => error,
        );
      assert.ok(error instanceof PostponeJob, String(error));
      return error.delayMs;
    };
    // About a second after its first run (±50 %), doubling with each postponement, then a few seconds at most.
    const first = await postponedBy(job);
    assert.ok(first >= 500 && first <= 1_500, `first postponement ${first} ms`);
    const third = await postponedBy({ attempts: 3, failures: 0 });
    assert.ok(third >= 2_000 && third <= 6_000, `third postponement ${third} ms`);
    const late = await postponedBy({ attempts: 40, failures: 0 });
    assert.ok(late >= 2_000 && late <= 6_000, `40th postponement ${late} ms`);
    // Runs that failed (attempts that reached the receiver) are not postponements.
    const afterFailures = await postponedBy({ attempts: 4, failures: 3 });
    assert.ok(afterFailures >= 500 && afterFailures <= 1_500, `first postponement after failures ${afterFailures} ms`);
    assert.equal(receiver.requests.length, 0, 'nothing was sent');
    assert.equal(
      (await cradle().persistence.deliveries.forAttempt(delivery.id))!.delivery.attemptCount,
      0,
      'no attempt recorded',
    );

    await slots[0]!.release();
    await cradle().deliverWebhook({ ...job, attempts: 2 }, context);
    assert.equal(receiver.requests.length, 1);
    assert.equal((await cradle().persistence.deliveries.forAttempt(delivery.id))!.delivery.status, 'succeeded');
    await slots[1]!.release();
  });
});
