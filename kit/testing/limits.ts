import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { rateWindow, type Limits, type Slot } from '../plugin.ts';

export interface LimitsContractOptions<L extends Limits = Limits> {
  name: string;
  /** A new adapter on the store under test; the suite makes two where `shared`, as two processes would. */
  create(): L | Promise<L>;
  /** Releases an adapter (its connections); called once for each made, after the suite. */
  dispose?(limits: L): void | Promise<void>;
  /**
   * True when adapters made by separate `create()` calls count against one budget (a shared
   * store: Redis, Postgres). False: each keeps its own (memory, one per process).
   */
  shared: boolean;
  /**
   * Rate operations the shared store has served so far, every instance together (Redis: its script
   * calls; Postgres: its writes of the rates table). Given, the suite also checks which takes must
   * not reach the store: a spent key's refusals, and most takes of a key taken steadily.
   */
  storeCalls?(): Promise<number>;
  /**
   * A new adapter whose store can be cut off (connections reset, new ones refused), as in an
   * outage; `dispose` releases it. Given, the suite checks the fallback the port promises.
   */
  withOutage?(): Promise<{ limits: L; cut(): Promise<void>; dispose(): Promise<void> }>;
}

/** Every test counts under names of its own, so what one leaves in a store never meets another. */
const freshName = (what: string) => `${what}-${randomUUID().slice(0, 8)}`;

/** Whether `promise` settles within the current run of microtasks, before any I/O could be read. */
async function settlesWithoutIo(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let turn = 0; turn < 50 && !settled; turn++) await null;
  return settled;
}

/** How many of `decisions` were allowed. */
const admitted = (decisions: Array<{ allowed: boolean }>) => decisions.filter((decision) => decision.allowed).length;

/**
 * The limits contract: rate limiters admit a key's budget and no more, say when to come back, and
 * keep keys apart; concurrency caps hand out at most `limit` slots a key, which come back when
 * released or when their lease runs out. Adapters on a shared store keep one budget across instances.
 */
export function limitsContract<L extends Limits>(options: LimitsContractOptions<L>) {
  describe(`limits contract: ${options.name}`, () => {
    const made: L[] = [];
    let limits: L;
    const make = async () => {
      const instance = await options.create();
      made.push(instance);
      return instance;
    };
    before(async () => {
      limits = await make();
    });
    after(async () => {
      for (const instance of made) await options.dispose?.(instance);
    });

    // A window long enough that no test sees it end by accident.
    const slow = { perSecond: 0.01, burst: 5 };

    it('admits exactly the burst of one key, then refuses', async () => {
      const limiter = limits.rateLimiter(freshName('burst'), slow);
      const decisions = [];
      for (let n = 0; n < 8; n++) decisions.push(await limiter.take('key'));
      assert.deepEqual(
        decisions.map((decision) => decision.allowed),
        [true, true, true, true, true, false, false, false],
      );
    });

    it('admits exactly the burst when the takes race', async () => {
      const limiter = limits.rateLimiter(freshName('race'), slow);
      const decisions = await Promise.all(Array.from({ length: 20 }, () => limiter.take('key')));
      assert.equal(admitted(decisions), slow.burst);
    });

    it('keeps keys, and limiters of different names, apart', async () => {
      const name = freshName('keys');
      const limiter = limits.rateLimiter(name, slow);
      for (let n = 0; n < slow.burst; n++) await limiter.take('spent');
      assert.equal((await limiter.take('spent')).allowed, false);
      assert.equal((await limiter.take('other')).allowed, true);
      assert.equal((await limits.rateLimiter(freshName('keys'), slow).take('spent')).allowed, true);
      // The same name asked for again is the same budget.
      assert.equal((await limits.rateLimiter(name, slow).take('spent')).allowed, false);
    });

    it('says when to come back: within the window, and it is allowed again then', async () => {
      const rule = { perSecond: 2, burst: 2 };
      const limiter = limits.rateLimiter(freshName('retry'), rule);
      assert.equal(admitted([await limiter.take('key'), await limiter.take('key')]), 2);
      const refused = await limiter.take('key');
      assert.equal(refused.allowed, false);
      const retryAfterMs = refused.allowed ? 0 : refused.retryAfterMs;
      assert.ok(retryAfterMs > 0 && retryAfterMs <= rateWindow(rule).duration * 1000, `retryAfterMs ${retryAfterMs}`);
      await sleep(retryAfterMs + 50);
      assert.equal((await limiter.take('key')).allowed, true);
    });

    it('hands out at most `limit` slots of a key, also when acquires race, and keeps keys apart', async () => {
      const cap = limits.concurrency(freshName('slots'), 2, 30_000);
      const slots = await Promise.all(Array.from({ length: 6 }, () => cap.tryAcquire('key')));
      const held = slots.filter((slot): slot is Slot => slot !== null);
      assert.equal(held.length, 2);
      assert.equal(await cap.tryAcquire('key'), null);
      const other = await cap.tryAcquire('other');
      assert.ok(other, 'another key has slots of its own');
      for (const slot of [...held, other]) await slot.release();
    });

    it('gives a released slot back, and releasing twice frees only one', async () => {
      const cap = limits.concurrency(freshName('release'), 2, 30_000);
      const first = (await cap.tryAcquire('key'))!;
      const second = (await cap.tryAcquire('key'))!;
      assert.ok(first && second);
      await first.release();
      await first.release();
      const third = await cap.tryAcquire('key');
      assert.ok(third, 'the released slot is free');
      assert.equal(await cap.tryAcquire('key'), null, 'a second release freed nothing more');
      await second.release();
      await third.release();
    });

    it('frees a slot whose lease ran out (its holder died), and refuses that holder a renewal', async () => {
      const cap = limits.concurrency(freshName('expiry'), 1, 300);
      const abandoned = (await cap.tryAcquire('key'))!;
      assert.ok(abandoned);
      assert.equal(await cap.tryAcquire('key'), null);
      await sleep(450);
      const next = await cap.tryAcquire('key');
      assert.ok(next, 'the expired slot is free again');
      assert.equal(await abandoned.renew(), false);
      // The late holder's release does not free its successor's slot.
      await abandoned.release();
      assert.equal(await cap.tryAcquire('key'), null);
      await next.release();
    });

    it('keeps a renewed slot past its first lease', async () => {
      const cap = limits.concurrency(freshName('renew'), 1, 600);
      const slot = (await cap.tryAcquire('key'))!;
      assert.ok(slot);
      for (let n = 0; n < 4; n++) {
        await sleep(250);
        assert.equal(await slot.renew(), true);
      }
      // A second past the first lease's end, the slot is still held.
      assert.equal(await cap.tryAcquire('key'), null);
      await slot.release();
      const again = await cap.tryAcquire('key');
      assert.ok(again);
      await again.release();
    });

    it('frees every slot an instance holds when asked (its process died), before their leases end', async () => {
      // A shared store frees one instance's slots from another, as a live process frees a dead one's.
      const doomed = options.shared ? await make() : limits;
      if (options.shared) assert.notEqual(doomed.instance, limits.instance, 'each instance holds under its own id');
      const name = freshName('instance');
      const otherName = freshName('instance-other');
      const held = [
        await doomed.concurrency(name, 1, 30_000).tryAcquire('a'),
        await doomed.concurrency(name, 1, 30_000).tryAcquire('b'),
        await doomed.concurrency(otherName, 1, 30_000).tryAcquire('a'),
      ];
      assert.ok(held.every(Boolean));
      const kept = options.shared ? await limits.concurrency(name, 1, 30_000).tryAcquire('c') : null;
      assert.equal(await limits.concurrency(name, 1, 30_000).tryAcquire('a'), null);
      assert.equal(await limits.releaseInstance(`gone-${randomUUID()}`), 0, 'an unknown instance frees nothing');
      assert.equal(await limits.concurrency(name, 1, 30_000).tryAcquire('a'), null);

      assert.equal(await limits.releaseInstance(doomed.instance), 3);
      const taken = [
        await limits.concurrency(name, 1, 30_000).tryAcquire('a'),
        await limits.concurrency(name, 1, 30_000).tryAcquire('b'),
        await limits.concurrency(otherName, 1, 30_000).tryAcquire('a'),
      ];
      assert.ok(taken.every(Boolean), 'every slot of the instance is free again');
      if (kept)
        assert.equal(await limits.concurrency(name, 1, 30_000).tryAcquire('c'), null, "others' slots stay held");
      // The freed holders learn it at their next renewal; their late releases free nothing of their successors'.
      assert.equal(await held[0]!.renew(), false);
      await held[0]!.release();
      assert.equal(await limits.concurrency(name, 1, 30_000).tryAcquire('a'), null);
      for (const slot of [...taken, kept]) await slot?.release();
    });

    it('never admits more than the budget of a hot key whose takes race, and hands out all of it to those who ask', async () => {
      // Points enough for reservations of several (a process may hold a tenth of a window's), and
      // not a multiple of them, so the last reservation is refused with part of it granted.
      const rule = { perSecond: 0.05, burst: 64 };
      const name = freshName('hot');
      const instances = options.shared ? [limits, await make()] : [limits];
      const limiters = instances.map((instance) => instance.rateLimiter(name, rule));
      const decisions = [];
      for (let wave = 0; wave < 3; wave++) {
        decisions.push(
          ...(await Promise.all(limiters.flatMap((limiter) => Array.from({ length: 40 }, () => limiter.take('key'))))),
        );
      }
      assert.ok(admitted(decisions) <= rule.burst, `${admitted(decisions)} admitted of a budget of ${rule.burst}`);
      // What an instance still holds goes to its next takes; once each is refused, the whole budget is out.
      for (const limiter of limiters) {
        for (let decision = await limiter.take('key'); decision.allowed; decision = await limiter.take('key'))
          decisions.push(decision);
      }
      assert.equal(admitted(decisions), rule.burst);
    });

    it('answers the takes of a steadily taken key within its budget without waiting on I/O', async () => {
      const limiter = limits.rateLimiter(freshName('steady'), { perSecond: 10, burst: 1000 });
      const before = await options.storeCalls?.();
      for (let n = 0; n < 200; n++) assert.equal((await limiter.take('key')).allowed, true);
      // Then a take every millisecond or so: each is answered before any I/O, from points asked for
      // in the background while enough were left.
      for (let n = 0; n < 300; n++) {
        const take = limiter.take('key');
        assert.ok(await settlesWithoutIo(take), `take ${n} after the warm-up waited on I/O`);
        assert.equal((await take).allowed, true);
        await sleep(1);
      }
      if (before !== undefined) {
        const calls = (await options.storeCalls!()) - before;
        assert.ok(calls <= 500 / 4, `${calls} store calls for 500 takes`);
      }
    });

    if (options.storeCalls) {
      it('refuses a spent key from memory, saying when to come back, without asking the store', async () => {
        const name = freshName('spent');
        const limiter = limits.rateLimiter(name, slow);
        while ((await limiter.take('key')).allowed);
        const before = await options.storeCalls!();
        for (let n = 0; n < 10; n++) {
          const decision = await limiter.take('key');
          assert.equal(decision.allowed, false);
          const retryAfterMs = decision.allowed ? 0 : decision.retryAfterMs;
          assert.ok(
            retryAfterMs > 0 && retryAfterMs <= rateWindow(slow).duration * 1000,
            `retryAfterMs ${retryAfterMs}`,
          );
        }
        assert.equal(
          (await options.storeCalls!()) - before,
          0,
          'refusals of a key known to be spent reached the store',
        );
        if (options.shared) {
          // Another process learns it from its first refusal, and asks no more.
          const there = (await make()).rateLimiter(name, slow);
          for (let n = 0; n < 5; n++) assert.equal((await there.take('key')).allowed, false);
          assert.ok((await options.storeCalls!()) - before <= 1, 'the other instance asked the store more than once');
        }
      });
    }

    if (options.withOutage) {
      it('counts rate limits in the process while the store is away, and refuses caps', async () => {
        const { limits: cut, cut: cutStore, dispose } = await options.withOutage!();
        try {
          const rule = { perSecond: 0.01, burst: 3 };
          const limiter = cut.rateLimiter(freshName('outage'), rule);
          assert.equal((await limiter.take('key')).allowed, true);
          await cutStore();
          // The fallback counts this process alone, from a fresh budget, and says when to come back.
          const decisions = [];
          for (let n = 0; n < 5; n++) decisions.push(await limiter.take('key'));
          assert.deepEqual(
            decisions.map((decision) => decision.allowed),
            [true, true, true, false, false],
          );
          assert.ok(decisions.every((decision) => decision.allowed || decision.retryAfterMs > 0));
          await assert.rejects(cut.concurrency(freshName('outage-slots'), 1, 30_000).tryAcquire('key'));
        } finally {
          await dispose();
        }
      });
    }

    if (options.shared) {
      it('shares one budget between two instances, as between two processes', async () => {
        const other = await make();
        const name = freshName('shared');
        const here = limits.rateLimiter(name, slow);
        const there = other.rateLimiter(name, slow);
        const decisions = [];
        for (let n = 0; n < 10; n++) decisions.push(await (n % 2 ? there : here).take('key'));
        assert.equal(admitted(decisions), slow.burst, 'one burst in all, not one per instance');

        const capName = freshName('shared-slots');
        const slot = await limits.concurrency(capName, 1, 30_000).tryAcquire('key');
        assert.ok(slot);
        assert.equal(await other.concurrency(capName, 1, 30_000).tryAcquire('key'), null);
        await slot.release();
        const taken = await other.concurrency(capName, 1, 30_000).tryAcquire('key');
        assert.ok(taken, 'released by one instance, free for the other');
        await taken.release();
      });
    } else {
      it('keeps a budget per instance (one per process)', async () => {
        const other = await make();
        const name = freshName('separate');
        for (let n = 0; n < slow.burst; n++)
          assert.equal((await limits.rateLimiter(name, slow).take('key')).allowed, true);
        assert.equal((await other.rateLimiter(name, slow).take('key')).allowed, true);
      });
    }
  });
}
