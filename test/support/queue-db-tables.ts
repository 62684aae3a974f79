import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PersistenceSuiteContext } from 'visualizer/testing';
import { testIds } from '../../kit/testing/ids.ts';
import { jobsOf, schedulesOf } from '../../plugins/queue-db/tables.ts';

/**
 * The queue's tables in the Kysely store's database (plugins/queue-db/tables.ts), once part of the
 * persistence contract: the `db` queue's jobs (an unfinished job found by its payload), the dead
 * letters every queue engine keeps its given-up jobs in, and the claims that run each scheduled
 * task once per cluster.
 */
export function queueDbTablesSuite(context: PersistenceSuiteContext) {
  describe("the queue's tables: jobs, dead letters and schedules", () => {
    it('tells whether a job of a kind with given payload fields is unfinished: queued, running, waiting for a retry; not finished nor buried', async () => {
      const store = context.store();
      const kind = `test.unfinished.${testIds.id('k')}`;
      const [first, second] = [testIds.id('job_'), testIds.id('job_')];
      const has = (fields: Record<string, string>, ofKind = kind) =>
        store.transaction((tx) => jobsOf(tx).hasUnfinished(ofKind, fields));
      assert.equal(await has({ ref: 'a' }), false);
      await store.transaction(async (tx) => {
        await jobsOf(tx).enqueue({
          id: first,
          kind,
          payload: { ref: 'a', owner: 'org_1', n: 1, nested: { ref: 'b' } },
          runAt: 0,
          createdAt: 1,
        });
        await jobsOf(tx).enqueue({ id: second, kind, payload: { ref: 'b' }, runAt: 0, createdAt: 1 });
      });
      assert.equal(await has({ ref: 'a' }), true, 'queued');
      assert.equal(await has({ ref: 'a', owner: 'org_1' }), true, 'every field matches');
      assert.equal(await has({ ref: 'a', owner: 'org_2' }), false);
      assert.equal(await has({ ref: 'c' }), false);
      assert.equal(await has({ ref: 'a' }, `${kind}.other`), false, 'another kind');
      assert.equal(
        await jobsOf(store).hasUnfinished(kind, { ref: 'b' }),
        true,
        'a top-level field only, outside a transaction too',
      );
      await assert.rejects(has({ 'ref.x': 'a' }), /letters, digits and _/);

      assert.equal(
        (await jobsOf(store).claim({ kinds: [kind], workerId: 'wkr_u', now: Date.now(), leaseMs: 60_000, limit: 2 }))
          .length,
        2,
      );
      assert.equal(await has({ ref: 'a' }), true, 'running');
      const now = Date.now();
      assert.equal(
        await jobsOf(store).reschedule(first, 'wkr_u', { runAt: now, now, error: 'later', failed: true }),
        true,
      );
      assert.equal(await has({ ref: 'a' }), true, 'waiting for a retry');
      assert.equal(
        await store.transaction((tx) => jobsOf(tx).bury(second, 'wkr_u', { error: 'boom', diedAt: 2 })),
        true,
      );
      assert.equal(await has({ ref: 'b' }), false, 'buried');
      assert.deepEqual(
        (
          await jobsOf(store).claim({ kinds: [kind], workerId: 'wkr_u', now: Date.now(), leaseMs: 60_000, limit: 2 })
        ).map((job) => job.id),
        [first],
      );
      assert.equal(await jobsOf(store).complete(first, 'wkr_u'), true);
      assert.equal(await has({ ref: 'a' }), false, 'finished');
      await store.transaction((tx) => jobsOf(tx).takeDead({ id: second }));
    });

    it('moves a job given up to the dead letters, lists them newest first by kind, and hands them back for a retry', async () => {
      const store = context.store();
      const kind = `test.dead.${testIds.id('k')}`;
      const [first, second] = [testIds.id('job_'), testIds.id('job_')];
      await store.transaction(async (tx) => {
        await jobsOf(tx).enqueue({ id: first, kind, payload: { n: 1 }, runAt: 0, createdAt: 5 });
        await jobsOf(tx).enqueue({ id: second, kind, payload: { n: 2 }, runAt: 0, createdAt: 6 });
      });
      assert.equal(
        (await jobsOf(store).claim({ kinds: [kind], workerId: 'wkr_a', now: Date.now(), leaseMs: 60_000, limit: 2 }))
          .length,
        2,
      );
      assert.equal(
        await store.transaction((tx) => jobsOf(tx).bury(first, 'wkr_b', { error: 'not mine', diedAt: 100 })),
        false,
        'only the worker holding a job buries it',
      );
      assert.equal(
        await store.transaction((tx) => jobsOf(tx).bury(first, 'wkr_a', { error: 'boom', diedAt: 100 })),
        true,
      );
      assert.equal(await jobsOf(store).pending([kind]), 1, 'a buried job is no longer queued');
      assert.equal(
        await store.transaction((tx) => jobsOf(tx).bury(second, 'wkr_a', { error: 'x'.repeat(5_000), diedAt: 200 })),
        true,
      );

      const dead = await jobsOf(store).listDead({ kind, limit: 10 });
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
        (await jobsOf(store).listDead({ kind, limit: 1 })).map((job) => job.id),
        [second],
      );
      assert.deepEqual(await jobsOf(store).listDead({ kind: `${kind}.other`, limit: 10 }), []);

      assert.deepEqual(
        (await store.transaction((tx) => jobsOf(tx).takeDead({ id: first }))).map((job) => job.id),
        [first],
      );
      assert.deepEqual(await store.transaction((tx) => jobsOf(tx).takeDead({ id: first })), [], 'taken once');
      assert.deepEqual(
        (await store.transaction((tx) => jobsOf(tx).takeDead({ kind }))).map((job) => job.id),
        [second],
      );
      assert.deepEqual(await jobsOf(store).listDead({ kind, limit: 10 }), []);
    });

    it('claims each run of a scheduled task once, across handles', async () => {
      const name = `test.schedule.${testIds.id('s')}`;
      const handles = [context.store(), context.open()];
      const claims = await Promise.all(
        Array.from({ length: 10 }, (_, index) => schedulesOf(handles[index % 2]!).claimRun(name, 60_000)),
      );
      assert.equal(claims.filter(Boolean).length, 1);
      assert.equal(await schedulesOf(handles[1]!).claimRun(name, 60_000), false, 'not again within the interval');
    });

    it('prunes dead jobs older than the time given, in bounded batches', async () => {
      const store = context.store();
      const kind = `test.prune.${testIds.id('k')}`;
      const ids = [testIds.id('job_'), testIds.id('job_')];
      for (const id of ids) await jobsOf(store).enqueue({ id, kind, payload: {}, runAt: 0, createdAt: 1 });
      await jobsOf(store).claim({ kinds: [kind], workerId: 'wkr_p', now: Date.now(), leaseMs: 60_000, limit: 2 });
      await store.transaction((tx) => jobsOf(tx).bury(ids[0]!, 'wkr_p', { error: 'old', diedAt: 5 }));
      await store.transaction((tx) => jobsOf(tx).bury(ids[1]!, 'wkr_p', { error: 'new', diedAt: Date.now() }));
      assert.equal(await store.transaction((tx) => jobsOf(tx).pruneDead(10_000, 10)), 1);
      assert.deepEqual(
        (await jobsOf(store).listDead({ kind, limit: 10 })).map((job) => job.id),
        [ids[1]],
      );
    });
  });
}
