import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { tenantService } from '../../core/services/tenants.ts';
import type { Persistence } from '../plugin.ts';
import { testIds } from './ids.ts';
import { generationRecord, webhookEndpointRecord } from './records.ts';

/**
 * Dead letters, schedules and retention, part of the persistence contract. The suite shares one
 * database, so the rows pruned here are dated in 1970, older than anything another case writes.
 */
export function persistenceRetentionContract(context: {
  store: () => Persistence;
  open: () => Persistence;
  tenants: () => ReturnType<typeof tenantService>;
}) {
  describe('dead letters, schedules and retention', () => {
    it('tells whether a job of a kind with given payload fields is unfinished: queued, running, waiting for a retry; not finished nor buried', async () => {
      const store = context.store();
      const kind = `test.unfinished.${testIds.id('k')}`;
      const [first, second] = [testIds.id('job_'), testIds.id('job_')];
      const has = (fields: Record<string, string>, ofKind = kind) =>
        store.transaction((tx) => tx.jobs.hasUnfinished(ofKind, fields));
      assert.equal(await has({ ref: 'a' }), false);
      await store.transaction(async (tx) => {
        await tx.jobs.enqueue({
          id: first,
          kind,
          payload: { ref: 'a', owner: 'org_1', n: 1, nested: { ref: 'b' } },
          runAt: 0,
          createdAt: 1,
        });
        await tx.jobs.enqueue({ id: second, kind, payload: { ref: 'b' }, runAt: 0, createdAt: 1 });
      });
      assert.equal(await has({ ref: 'a' }), true, 'queued');
      assert.equal(await has({ ref: 'a', owner: 'org_1' }), true, 'every field matches');
      assert.equal(await has({ ref: 'a', owner: 'org_2' }), false);
      assert.equal(await has({ ref: 'c' }), false);
      assert.equal(await has({ ref: 'a' }, `${kind}.other`), false, 'another kind');
      assert.equal(
        await store.jobs.hasUnfinished(kind, { ref: 'b' }),
        true,
        'a top-level field only, outside a transaction too',
      );
      await assert.rejects(has({ 'ref.x': 'a' }), /letters, digits and _/);

      assert.equal(
        (await store.jobs.claim({ kinds: [kind], workerId: 'wkr_u', now: Date.now(), leaseMs: 60_000, limit: 2 }))
          .length,
        2,
      );
      assert.equal(await has({ ref: 'a' }), true, 'running');
      const now = Date.now();
      assert.equal(
        await store.jobs.reschedule(first, 'wkr_u', { runAt: now, now, error: 'later', failed: true }),
        true,
      );
      assert.equal(await has({ ref: 'a' }), true, 'waiting for a retry');
      assert.equal(await store.transaction((tx) => tx.jobs.bury(second, 'wkr_u', { error: 'boom', diedAt: 2 })), true);
      assert.equal(await has({ ref: 'b' }), false, 'buried');
      assert.deepEqual(
        (await store.jobs.claim({ kinds: [kind], workerId: 'wkr_u', now: Date.now(), leaseMs: 60_000, limit: 2 })).map(
          (job) => job.id,
        ),
        [first],
      );
      assert.equal(await store.jobs.complete(first, 'wkr_u'), true);
      assert.equal(await has({ ref: 'a' }), false, 'finished');
      await store.transaction((tx) => tx.jobs.takeDead({ id: second }));
    });

    it('moves a job given up to the dead letters, lists them newest first by kind, and hands them back for a retry', async () => {
      const store = context.store();
      const kind = `test.dead.${testIds.id('k')}`;
      const [first, second] = [testIds.id('job_'), testIds.id('job_')];
      await store.transaction(async (tx) => {
        await tx.jobs.enqueue({ id: first, kind, payload: { n: 1 }, runAt: 0, createdAt: 5 });
        await tx.jobs.enqueue({ id: second, kind, payload: { n: 2 }, runAt: 0, createdAt: 6 });
      });
      assert.equal(
        (await store.jobs.claim({ kinds: [kind], workerId: 'wkr_a', now: Date.now(), leaseMs: 60_000, limit: 2 }))
          .length,
        2,
      );
      assert.equal(
        await store.transaction((tx) => tx.jobs.bury(first, 'wkr_b', { error: 'not mine', diedAt: 100 })),
        false,
        'only the worker holding a job buries it',
      );
      assert.equal(await store.transaction((tx) => tx.jobs.bury(first, 'wkr_a', { error: 'boom', diedAt: 100 })), true);
      assert.equal(await store.jobs.pending([kind]), 1, 'a buried job is no longer queued');
      assert.equal(
        await store.transaction((tx) => tx.jobs.bury(second, 'wkr_a', { error: 'x'.repeat(5_000), diedAt: 200 })),
        true,
      );

      const dead = await store.jobs.listDead({ kind, limit: 10 });
      assert.deepEqual(
        dead.map((job) => job.id),
        [second, first],
        'the most recent death first',
      );
      assert.deepEqual(dead[1], {
        id: first,
        kind,
        payload: { n: 1 },
        attempts: 1,
        failures: 1,
        lastError: 'boom',
        createdAt: 5,
        diedAt: 100,
      });
      assert.ok(dead[0]!.lastError!.length <= 2_000, 'a long error is cut');
      assert.deepEqual(
        (await store.jobs.listDead({ kind, limit: 1 })).map((job) => job.id),
        [second],
      );
      assert.deepEqual(await store.jobs.listDead({ kind: `${kind}.other`, limit: 10 }), []);

      assert.deepEqual(
        (await store.transaction((tx) => tx.jobs.takeDead({ id: first }))).map((job) => job.id),
        [first],
      );
      assert.deepEqual(await store.transaction((tx) => tx.jobs.takeDead({ id: first })), [], 'taken once');
      assert.deepEqual(
        (await store.transaction((tx) => tx.jobs.takeDead({ kind }))).map((job) => job.id),
        [second],
      );
      assert.deepEqual(await store.jobs.listDead({ kind, limit: 10 }), []);
    });

    it('claims each run of a scheduled task once, across handles', async () => {
      const name = `test.schedule.${testIds.id('s')}`;
      const handles = [context.store(), context.open()];
      const claims = await Promise.all(
        Array.from({ length: 10 }, (_, index) => handles[index % 2]!.schedules.claimRun(name, 60_000)),
      );
      assert.equal(claims.filter(Boolean).length, 1);
      assert.equal(await handles[1]!.schedules.claimRun(name, 60_000), false, 'not again within the interval');
    });

    it('prunes old events with their deliveries and attempts in bounded batches, never one still being delivered', async () => {
      const store = context.store();
      const { organization } = await context.tenants().createOrganization({ name: 'Retention', credits: 0 });
      const endpoint = webhookEndpointRecord(organization.id);
      await store.webhookEndpoints.create(endpoint);
      const events = ['ended_a', 'ended_b', 'ended_c', 'retrying'].map((name, index) => ({
        id: testIds.id(`evt_${name}_`),
        organizationId: organization.id,
        type: 'generation.completed',
        body: '{}',
        createdAt: index + 1,
      }));
      for (const [index, event] of events.entries()) {
        await store.events.append(event);
        const deliveryId = testIds.id('whd_');
        const status = index === 3 ? ('pending' as const) : ('succeeded' as const);
        await store.deliveries.create({
          id: deliveryId,
          eventId: event.id,
          endpointId: endpoint.id,
          status,
          attemptCount: 1,
          nextAttemptAt: null,
          lastError: null,
          createdAt: 1,
          updatedAt: 1,
        });
        await store.deliveries.recordAttempt({
          id: testIds.id('wha_'),
          deliveryId,
          attemptedAt: 2,
          statusCode: 200,
          error: null,
          durationMs: 3,
          responseBody: null,
        });
      }
      const cutoff = 10_000;
      assert.equal(
        await store.transaction((tx) => tx.retention.pruneEvents(cutoff, 2)),
        2,
        'a batch is at most its limit',
      );
      assert.equal(await store.transaction((tx) => tx.retention.pruneEvents(cutoff, 2)), 1);
      assert.equal(await store.transaction((tx) => tx.retention.pruneEvents(cutoff, 2)), 0);
      for (const event of events.slice(0, 3)) {
        assert.equal(await store.events.get(organization.id, event.id), null);
        assert.deepEqual(await store.deliveries.forEvent(event.id), []);
        assert.deepEqual(await store.deliveries.attemptsForEvent(event.id), []);
      }
      const retrying = events[3]!;
      assert.ok(await store.events.get(organization.id, retrying.id), 'an event whose delivery is pending stays');
      assert.equal((await store.deliveries.attemptsForEvent(retrying.id)).length, 1, 'with its history');
    });

    it('prunes idempotency keys and dead jobs older than the time given, in bounded batches', async () => {
      const store = context.store();
      const { organization } = await context.tenants().createOrganization({ name: 'Old keys', credits: 0 });
      const generationId = testIds.id('gen_');
      await store.generations.create(generationRecord(organization.id, { id: generationId }));
      for (const [key, at] of [
        ['old-1', 1],
        ['old-2', 2],
        ['old-3', 3],
        ['recent', Date.now()],
      ] as const)
        await store.idempotencyKeys.bind(organization.id, key, generationId, at);
      assert.equal(await store.transaction((tx) => tx.retention.pruneIdempotencyKeys(10_000, 2)), 2);
      assert.equal(await store.transaction((tx) => tx.retention.pruneIdempotencyKeys(10_000, 2)), 1);
      assert.equal(await store.idempotencyKeys.find(organization.id, 'old-1'), null);
      assert.equal(await store.idempotencyKeys.find(organization.id, 'recent'), generationId);

      const kind = `test.prune.${testIds.id('k')}`;
      const ids = [testIds.id('job_'), testIds.id('job_')];
      for (const id of ids) await store.jobs.enqueue({ id, kind, payload: {}, runAt: 0, createdAt: 1 });
      await store.jobs.claim({ kinds: [kind], workerId: 'wkr_p', now: Date.now(), leaseMs: 60_000, limit: 2 });
      await store.transaction((tx) => tx.jobs.bury(ids[0]!, 'wkr_p', { error: 'old', diedAt: 5 }));
      await store.transaction((tx) => tx.jobs.bury(ids[1]!, 'wkr_p', { error: 'new', diedAt: Date.now() }));
      assert.equal(await store.transaction((tx) => tx.retention.pruneDeadJobs(10_000, 10)), 1);
      assert.deepEqual(
        (await store.jobs.listDead({ kind, limit: 10 })).map((job) => job.id),
        [ids[1]],
      );
    });

    it('deletes generations as scrubbed tombstones that reads leave out, fails a processing one, and finds expired ones by age', async () => {
      const store = context.store();
      const { organization } = await context.tenants().createOrganization({ name: 'Deletions', credits: 0 });
      const { organization: other } = await context.tenants().createOrganization({ name: 'Others', credits: 0 });
      const personal = {
        hint: 'blue',
        metadata: { customer: 'c-1' },
        visitorId: 'vis_1',
        sessionId: 'ses_1',
        imageUrl: 'https://cdn.example/gen/x/original.png',
        errorMessage: null,
      };
      const done = generationRecord(organization.id, {
        ...personal,
        createdAt: 10,
        completedAt: 11,
        creditsCharged: 2,
      });
      const rendering = generationRecord(organization.id, { status: 'processing', createdAt: 20, creditsCharged: 3 });
      const young = generationRecord(organization.id, { status: 'failed', createdAt: 5_000, completedAt: 5_001 });
      const foreign = generationRecord(other.id, { createdAt: 10 });
      for (const record of [done, rendering, young, foreign]) await store.generations.create(record);
      assert.deepEqual(
        await store.generations.expired(organization.id, 1_000, 10),
        [done.id],
        'ended, live and older than the cutoff, not processing',
      );

      const marked = await store.transaction((tx) =>
        tx.generations.markDeleted(organization.id, [done.id, rendering.id, foreign.id, 'agen_unknown'], {
          at: 100,
          reason: 'deleted',
        }),
      );
      assert.deepEqual(
        marked.sort((a, b) => a.id.localeCompare(b.id)),
        [
          { id: done.id, status: 'complete', creditsCharged: 2, widgetId: null, createdAt: done.createdAt },
          { id: rendering.id, status: 'processing', creditsCharged: 3, widgetId: null, createdAt: rendering.createdAt },
        ].sort((a, b) => a.id.localeCompare(b.id)),
        'only live generations of the organization',
      );
      assert.deepEqual(
        await store.transaction((tx) =>
          tx.generations.markDeleted(organization.id, [done.id], { at: 200, reason: 'expired' }),
        ),
        [],
        'once',
      );
      assert.equal(await store.generations.get(organization.id, done.id), null);
      assert.equal(await store.generations.get(organization.id, rendering.id), null);
      assert.ok(await store.generations.get(other.id, foreign.id), "another organization's is untouched");
      assert.deepEqual(await store.generations.tombstone(organization.id, done.id), {
        id: done.id,
        deletedAt: 100,
        reason: 'deleted',
      });
      assert.equal(await store.generations.tombstone(other.id, done.id), null, 'tenancy');
      assert.equal(await store.generations.tombstone(organization.id, young.id), null, 'a live one has none');
      assert.equal(await store.generations.statusOf(rendering.id), 'failed', 'no render can complete it any more');
      assert.equal(
        await store.generations.complete(rendering.id, {
          imageUrl: 'https://cdn.example/x.png',
          imageVariants: {
            list: { url: 'https://x/l.jpg', width: 200 },
            card: { url: 'https://x/c.jpg', width: 600 },
            detail: { url: 'https://x/d.jpg', width: 1200 },
          },
          completedAt: 300,
        }),
        false,
      );
      const listed = await store.generations.list(organization.id, { limit: 10 });
      assert.deepEqual(
        listed.data.map((generation) => generation.id),
        [young.id],
      );
      assert.deepEqual(
        await store.generations.expired(organization.id, 10_000, 10),
        [young.id],
        'tombstones never expire again',
      );
      assert.deepEqual(
        (await store.generations.daily({ organizationId: organization.id }, { from: 0, to: 86_400_000 })).reduce(
          (sum, day) => sum + day.count,
          0,
        ),
        3,
        'daily counts still count deleted generations',
      );

      await store.organizations.setRenderRetention(organization.id, 30);
      assert.equal((await store.organizations.get(organization.id))?.renderRetentionDays, 30);
      assert.ok(
        (await store.organizations.withRenderRetention()).some(
          (entry) => entry.id === organization.id && entry.renderRetentionDays === 30,
        ),
      );
      assert.ok(!(await store.organizations.withRenderRetention()).some((entry) => entry.id === other.id));
      await store.organizations.setRenderRetention(organization.id, null);
      assert.equal((await store.organizations.get(organization.id))?.renderRetentionDays, null);
      assert.equal(await store.organizations.setRenderRetention('org_unknown', 3), null);
    });
  });
}
