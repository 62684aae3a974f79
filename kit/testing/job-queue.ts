import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  PostponeJob,
  RetryJob,
  type Clock,
  type IdGenerator,
  type JobHandler,
  type JobQueue,
  type Logger,
  type Persistence,
  type QueuedJob,
  type Repositories,
} from '../plugin.ts';
import type { PersistenceDatabase } from './database.ts';
import { testIds } from './ids.ts';
import { waitFor, withinHangBound } from './wait-for.ts';

/** The knobs every queue has, which the suite turns to make leases expire and backoffs pass within a test. */
export interface JobQueueSettings {
  /** How long a claimed job stays leased without a heartbeat; a dead worker's jobs return after it. */
  leaseMs: number;
  /** How often idle workers look for due jobs when nothing wakes them. */
  pollIntervalMs: number;
  /** A job whose handler keeps failing is given up after this many failures (postponed runs do not count). */
  maxAttempts: number;
  /** Delay after a job's first failure or outage, doubling with each further one. */
  retryDelayMs: number;
}

/** What the suite hands `createQueue`: the queue's collaborators and its settings for this test. */
export interface JobQueueDeps extends JobQueueSettings {
  /** The queue's time for run times and leases; some tests run it 100× faster than the wall clock. */
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
}

export interface JobQueueContractOptions<Database extends PersistenceDatabase = PersistenceDatabase> {
  name: string;
  /** A fresh, empty database (nothing migrated) whose `jobs` repository the queue works; the suite opens three handles on it. */
  create(): Database | Promise<Database>;
  /** Removes the database; called once after the suite, when every handle is closed. */
  dispose?(database: Database): void | Promise<void>;
  /** The queue under test, working jobs through `persistence`. The suite stops every queue it made. */
  createQueue(persistence: Persistence, deps: JobQueueDeps): JobQueue;
  /** An error as the database's driver throws it while the database is away (see the persistence suite). */
  unavailableError(): Error;
  /**
   * True when a job committed through one handle starts promptly on a queue working another
   * handle (another process), without notify() and without waiting for a poll (a database's
   * LISTEN/NOTIFY, say). False: such a job may wait for the poll interval.
   */
  signalsOtherProcesses: boolean;
  /**
   * True when the handles of one database in one process share a single connection (an embedded
   * database's, say): the contention test then runs two competing workers rather than three, as a
   * third adds no new path.
   */
  sharedConnection?: boolean;
  /**
   * True when the queue keeps run times and leases on the database's clock (Postgres's now()), so
   * the fast clock the suite hands it has no effect: backoff tests shorten the delays instead.
   */
  usesDatabaseClock?: boolean;
  /**
   * True (the default) when a worker that lost its lease can no longer complete or reschedule the
   * job another worker now holds. pg-boss 10 records no lease holder, so a late worker's
   * completion still lands; the job has run at least once either way.
   */
  fencesLostLeases?: boolean;
  /**
   * A handle on `database` with a single connection (a pool of one), whose wait for a connection
   * fails within a few seconds: the suite checks that a prepared queue enqueues on its
   * transaction's connection alone. Not needed where `sharedConnection`; without either, that
   * test is skipped.
   */
  openSingleConnection?(database: Database): Persistence;
  /** The shortest lease the queue can keep (pg-boss: whole seconds); default 200 ms. */
  minLeaseMs?: number;
  /**
   * Claims up to one due job of `kind` as a worker outside the queue under test would, for
   * `leaseMs`: a dead worker, or a successor checking what a stopped queue left, in the queue's
   * own tables.
   */
  claimAs(persistence: Persistence, kind: string, workerId: string, leaseMs: number): Promise<ClaimedJob | undefined>;
  /** Jobs of `kind` not yet finished, read inside `tx`. */
  pendingIn(tx: Repositories, kind: string): Promise<number>;
  /**
   * Makes `persistence` refuse the writes of a run's outcome while `refuse()` says so (by throwing
   * `error`), as an outage of the queue's database would.
   */
  refuseOutcomes(persistence: Persistence, refuse: () => boolean, error: () => Error): void;
}

/** A job claimed outside the queue under test (see `claimAs`). */
export interface ClaimedJob {
  id: string;
  attempts: number;
  failures: number;
  /** Finishes the job as its claimant; false if the claimant no longer held it. */
  complete(): Promise<boolean>;
  /** Puts the job back as its claimant, counting a failure; false if the claimant no longer held it. */
  reschedule(): Promise<boolean>;
}

const clock: Clock = { now: () => Date.now() };
const silentLogger: Logger = { info() {}, warn() {}, error() {} };

/** The queue's warnings and errors, kept for a failure's message: a claim that keeps failing is logged, not thrown. */
const queueLog: string[] = [];
const recordingLogger: Logger = {
  info() {},
  warn: (message, fields) => void queueLog.push(`warn ${message} ${JSON.stringify(fields ?? {})}`),
  error: (message, fields) => void queueLog.push(`error ${message} ${JSON.stringify(fields ?? {})}`),
};

/**
 * A clock that runs `factor` times faster than the wall clock, so a queue's backoff (1 s, 2 s,
 * 4 s …) passes in milliseconds. Only the queue's own bookkeeping (run times, leases) uses it.
 */
function fastClock(factor: number): Clock {
  const start = Date.now();
  return { now: () => start + (Date.now() - start) * factor };
}

/** A hung test (say, a stop() that never resolves) fails after this instead of stalling the run. */
const testTimeout = { timeout: 60_000 };

const defaults: JobQueueSettings = { leaseMs: 30_000, pollIntervalMs: 20, maxAttempts: 5, retryDelayMs: 1_000 };

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

let kindCounter = 0;
/** Every test works its own job kind, so jobs one test leaves behind never reach another's handlers. */
const newKind = (name: string) => `test.${name}.${++kindCounter}`;

/**
 * The job-queue contract: a queue working the jobs a persistence adapter stores, run against a
 * real database. Every queue plugin runs it on every persistence adapter that carries jobs.
 */
export function jobQueueContract<Database extends PersistenceDatabase>(options: JobQueueContractOptions<Database>) {
  describe(`job queue contract: ${options.name}`, () => {
    let database: Database | undefined;
    /** Three handles on one database: separate pools, or one shared connection where `sharedConnection`. */
    let store: Persistence;
    let other: Persistence;
    let third: Persistence;
    const handles: Persistence[] = [];
    const queues: JobQueue[] = [];
    /** Releases anything a failed test left blocked, so stopping its queues cannot hang. */
    const releases: (() => void)[] = [];

    const open = () => {
      const handle = database!.open();
      handles.push(handle);
      return handle;
    };

    /** A queue per handle that only enqueues and counts, as the API processes' queues do. */
    const producers = new Map<Persistence, JobQueue>();
    const producer = (persistence: Persistence) => {
      let queue = producers.get(persistence);
      if (!queue)
        producers.set(
          persistence,
          (queue = options.createQueue(persistence, { clock, ids: testIds, logger: silentLogger, ...defaults })),
        );
      return queue;
    };
    const claimAs = options.claimAs.bind(options);
    const fences = options.fencesLostLeases ?? true;
    /**
     * Queue time 100× faster than the wall clock, so backoffs of seconds pass in milliseconds: a
     * fast clock for a queue on its own time; for one on the database's clock, whose time the suite
     * cannot speed up, the wall clock and delays 100× shorter. `second` is a second of queue time:
     * tests that use `fast()` write their delays and the queue's `retryDelayMs` in it.
     */
    const fast = () => (options.usesDatabaseClock ? clock : fastClock(100));
    const second = options.usesDatabaseClock ? 10 : 1_000;

    const queueOn = (persistence: Persistence, settings: Partial<JobQueueSettings> = {}, queueClock: Clock = clock) => {
      const queue = options.createQueue(persistence, {
        clock: queueClock,
        ids: testIds,
        logger: recordingLogger,
        ...defaults,
        ...settings,
      });
      queues.push(queue);
      return queue;
    };

    /** Enqueues jobs as the services do: in a transaction, committed before anyone is notified. */
    async function enqueue(
      persistence: Persistence,
      kind: string,
      payloads: unknown[],
      runAt = clock.now(),
      via = producer(persistence),
    ): Promise<void> {
      await persistence.transaction(async (tx) => {
        for (const payload of payloads) await via.enqueue(tx, { kind, payload, runAt, createdAt: clock.now() });
      });
    }

    const pending = (kind: string) => producer(store).pending([kind]);

    const unavailable = () => options.unavailableError();

    before(async () => {
      database = await options.create();
      store = open();
      other = open();
      third = open();
      await store.migrate();
      assert.deepEqual(await other.pendingMigrations(), [], 'every handle sees the migrated schema');
    });

    afterEach(async () => {
      for (const release of releases.splice(0)) release();
      await Promise.all(queues.splice(0).map((queue) => queue.stop()));
    }, testTimeout);

    after(async () => {
      await Promise.all([...producers.values()].map((queue) => queue.stop()));
      for (const handle of handles) await handle.close();
      if (database) await options.dispose?.(database);
    });

    it(
      'runs every enqueued job exactly once when nothing fails, with its payload, and removes it',
      testTimeout,
      async () => {
        const kind = newKind('once');
        const runs = new Map<string, QueuedJob[]>();
        const queue = queueOn(store);
        await queue.work(
          {
            [kind]: async (job) => {
              runs.set(job.id, [...(runs.get(job.id) ?? []), job]);
              await sleep(Math.floor(Math.random() * 5));
            },
          },
          { concurrency: 4 },
        );
        const payloads = Array.from({ length: 30 }, (_, n) => ({
          n,
          nested: { text: `job ${n}`, list: [n, null, true] },
        }));
        for (const payload of payloads) {
          await enqueue(store, kind, [payload]);
          queue.notify();
        }
        await waitFor('all 30 jobs to finish', async () => (await pending(kind)) === 0);
        await sleep(200); // a duplicate run would show up here
        assert.equal(runs.size, 30, 'every job ran');
        const seenPayloads = [...runs.values()].flatMap((seen) => seen.map((job) => job.payload));
        assert.equal(seenPayloads.length, 30, 'each job ran exactly once');
        for (const seen of runs.values()) {
          assert.equal(seen[0]!.kind, kind);
          assert.equal(seen[0]!.attempts, 1, 'a first run is attempt 1');
        }
        assert.deepEqual(
          seenPayloads.sort((a, b) => (a as { n: number }).n - (b as { n: number }).n),
          payloads,
          'the handlers got the payloads as enqueued',
        );
        assert.equal(await producer(store).pending(), 0, 'finished jobs are removed');
      },
    );

    it('never runs more handlers at once than the concurrency of its work() call', testTimeout, async () => {
      const kind = newKind('bounded');
      await enqueue(
        store,
        kind,
        Array.from({ length: 15 }, (_, n) => ({ n })),
      );
      let inFlight = 0;
      let maxInFlight = 0;
      let done = 0;
      const queue = queueOn(store);
      await queue.work(
        {
          [kind]: async () => {
            inFlight += 1;
            maxInFlight = Math.max(maxInFlight, inFlight);
            await sleep(30);
            inFlight -= 1;
            done += 1;
          },
        },
        { concurrency: 3 },
      );
      await waitFor('15 jobs to finish', async () => done === 15 && (await pending(kind)) === 0);
      assert.ok(maxInFlight <= 3, `at most 3 handlers ran at once (saw ${maxInFlight})`);
      assert.equal(maxInFlight, 3, 'with 15 due jobs the queue does use all 3 slots');
    });

    it(
      'bounds each work() call on its own: slow jobs filling one call’s slots do not hold back another’s kinds',
      testTimeout,
      async () => {
        const slowKind = newKind('lane-slow');
        const fastKind = newKind('lane-fast');
        const unhandledKind = newKind('lane-unhandled');
        const gate = deferred();
        releases.push(gate.resolve);
        let slowIn = 0;
        let slowMax = 0;
        let slowStarted = 0;
        let fastIn = 0;
        let fastMax = 0;
        let fastDone = 0;
        await enqueue(store, slowKind, [1, 2, 3]);
        await enqueue(
          store,
          fastKind,
          Array.from({ length: 8 }, (_, n) => n),
        );
        await enqueue(store, unhandledKind, ['nobody works this kind']);
        const queue = queueOn(store);
        await queue.work(
          {
            [slowKind]: async () => {
              slowStarted += 1;
              slowMax = Math.max(slowMax, ++slowIn);
              await gate.promise;
              slowIn -= 1;
            },
          },
          { concurrency: 1 },
        );
        queue.notify();
        await waitFor('a slow job to fill the first call’s only slot', () => slowStarted === 1);
        await queue.work(
          {
            [fastKind]: async () => {
              fastMax = Math.max(fastMax, ++fastIn);
              await sleep(20);
              fastIn -= 1;
              fastDone += 1;
            },
          },
          { concurrency: 2 },
        );
        queue.notify();
        await waitFor(
          'the fast jobs to finish while a slow one blocks',
          async () => fastDone === 8 && (await pending(fastKind)) === 0,
        );
        assert.equal(slowStarted, 1, 'the slow call ran one job at a time');
        assert.equal(fastMax, 2, 'the fast call used its own 2 slots, no more');
        gate.resolve();
        await waitFor('the slow jobs to finish', async () => (await pending(slowKind)) === 0);
        assert.equal(slowMax, 1);
        assert.equal(slowStarted, 3);
        const untouched = await claimAs(store, unhandledKind, 'test', 1_000);
        assert.ok(untouched, 'a kind no handler names stays queued');
        assert.equal(untouched.attempts, 1, 'and was never claimed by the queue');
        assert.equal(await untouched.complete(), true);
      },
    );

    it('starts a job promptly after notify(), without waiting for the 60 s poll interval', testTimeout, async (t) => {
      const kind = newKind('prompt');
      let startedAt: number | undefined;
      const queue = queueOn(store, { pollIntervalMs: 60_000 });
      await queue.work({ [kind]: async () => void (startedAt ??= Date.now()) }, { concurrency: 1 });
      await sleep(300); // let the first (empty) claim finish, so the worker is asleep
      const enqueuedAt = Date.now();
      await enqueue(store, kind, [{}]);
      queue.notify();
      await waitFor('the job to start (the poll interval is 60 s)', () => startedAt !== undefined);
      const latency = startedAt! - enqueuedAt;
      t.diagnostic(`started ${latency} ms after enqueue`);
      assert.ok(latency < 5_000, `started ${latency} ms after enqueue`);
      await waitFor('the job to finish', async () => (await pending(kind)) === 0);
      // An idle worker stops at once too, rather than finishing its 60 s sleep first.
      const stopStarted = Date.now();
      await queue.stop();
      const stopTook = Date.now() - stopStarted;
      assert.ok(stopTook < 5_000, `stop() of an idle queue took ${stopTook} ms`);
    });

    it(
      'starts a job enqueued through another handle without notify(): at once where signalled, else within the poll interval',
      testTimeout,
      async (t) => {
        const signals = options.signalsOtherProcesses;
        const pollIntervalMs = signals ? 60_000 : 300;
        const kind = newKind('listen');
        let startedAt: number | undefined;
        const queue = queueOn(store, { pollIntervalMs });
        await queue.work({ [kind]: async () => void (startedAt ??= Date.now()) }, { concurrency: 1 });
        await sleep(300);
        const enqueuedAt = Date.now();
        await enqueue(other, kind, [{}]); // another pool, as another process would; nobody calls notify()
        await waitFor(`the job to start (the poll interval is ${pollIntervalMs} ms)`, () => startedAt !== undefined);
        const latency = startedAt! - enqueuedAt;
        t.diagnostic(`started ${latency} ms after enqueue (${signals ? 'signalled' : 'polled'})`);
        assert.ok(latency < 5_000, `started ${latency} ms after enqueue`);
        await waitFor('the job to finish', async () => (await pending(kind)) === 0);
      },
    );

    it('never runs a job whose enqueuing transaction rolled back', testTimeout, async () => {
      const kind = newKind('rollback');
      const ran: unknown[] = [];
      const queue = queueOn(store);
      await queue.work({ [kind]: async (job) => void ran.push(job.payload) }, { concurrency: 2 });
      await assert.rejects(
        store.transaction(async (tx) => {
          await producer(store).enqueue(tx, { kind, payload: 'ghost', runAt: clock.now(), createdAt: clock.now() });
          throw new Error('changed my mind');
        }),
        /changed my mind/,
      );
      queue.notify();
      // A job committed afterwards runs; by then the rolled-back one would have been claimed too.
      await enqueue(store, kind, ['real']);
      queue.notify();
      await waitFor('the committed job to run', () => ran.length > 0);
      await sleep(300);
      assert.deepEqual(ran, ['real']);
      assert.equal(await pending(kind), 0, 'nothing of the rolled-back transaction is left');
    });

    it(
      'after prepare(), enqueues on its transaction’s connection alone: a pool of one connection does not stall',
      testTimeout,
      async (t) => {
        // A server's requests may hold every pooled connection in their transactions at once.
        let single: Persistence;
        if (options.openSingleConnection) {
          single = options.openSingleConnection(database!);
          handles.push(single);
        } else if (options.sharedConnection) single = store;
        else return t.skip('no handle with a single connection on this database');
        const kind = newKind('prepared');
        const queue = queueOn(single);
        await queue.prepare([kind]);
        const marker = testIds.id('prep_');
        const enqueued = single.transaction(async (tx) => {
          await queue.enqueue(tx, { kind, payload: { marker }, runAt: clock.now(), createdAt: clock.now() });
          return queue.hasUnfinished(tx, kind, { marker });
        });
        // An enqueue that waits for a second connection waits forever or fails.
        const seen = await withinHangBound(enqueued, 20_000, 'the enqueue waited 20 s for another connection');
        assert.equal(seen, true, 'the job is seen inside its transaction');
        assert.equal(await pending(kind), 1, 'and committed with it');
        const job = await claimAs(store, kind, 'test', 1_000);
        assert.ok(job, 'the prepared kind’s job is claimable');
        assert.equal(await job.complete(), true);
      },
    );

    it(
      "finishes a job inside the handler's own transaction, and retries it when that transaction rolls back",
      testTimeout,
      async () => {
        const kind = newKind('complete-in');
        const outcomes: string[] = [];
        const completedInside: boolean[] = [];
        // 100× faster time, so the 1 s backoff after the rolled-back run takes 10 ms.
        const queue = queueOn(store, { pollIntervalMs: 20, retryDelayMs: second }, fast());
        await queue.work(
          {
            [kind]: async (job, context) => {
              const organizationId = testIds.id('org_');
              await store.transaction(async (tx) => {
                await tx.organizations.create({
                  id: organizationId,
                  name: `job ${job.attempts}`,
                  createdAt: clock.now(),
                });
                await context.completeIn(tx);
                completedInside.push((await options.pendingIn(tx, kind)) === 0);
                // The first run's transaction rolls back after completing: its outcome and the completion go together.
                if (job.attempts === 1) throw new Error('rolled back after completeIn');
              });
              outcomes.push(organizationId);
            },
          },
          { concurrency: 1 },
        );
        await enqueue(store, kind, [{}]);
        queue.notify();
        await waitFor(
          'the retried run to finish the job',
          async () => outcomes.length === 1 && (await pending(kind)) === 0,
        );
        await sleep(200);
        assert.deepEqual(completedInside, [true, true], 'inside its transaction the job is already gone');
        assert.equal(outcomes.length, 1, 'the job ran again after the rollback, and only once after it committed');
        assert.ok(await store.organizations.get(outcomes[0]!), "the committed run's write is there");
      },
    );

    it('reschedules a job whose handler throws RetryJob, after the delay, until it succeeds', testTimeout, async () => {
      const kind = newKind('retry');
      const delayMs = 100;
      const runs: { attempts: number; at: number }[] = [];
      const queue = queueOn(store, { pollIntervalMs: 20, maxAttempts: 5 });
      await queue.work(
        {
          [kind]: async (job) => {
            runs.push({ attempts: job.attempts, at: clock.now() });
            if (job.attempts < 3) throw new RetryJob(delayMs, `not yet (${job.attempts})`);
          },
        },
        { concurrency: 1 },
      );
      await enqueue(store, kind, [{}]);
      queue.notify();
      await waitFor('the third attempt to succeed', async () => runs.length >= 3 && (await pending(kind)) === 0);
      await sleep(300);
      assert.deepEqual(
        runs.map((run) => run.attempts),
        [1, 2, 3],
        'attempts count up, and success on the third ends the job',
      );
      for (let i = 1; i < runs.length; i++) {
        const gap = runs[i]!.at - runs[i - 1]!.at;
        assert.ok(
          gap >= delayMs,
          `attempt ${i + 1} ran ${gap} ms after attempt ${i}, not before the ${delayMs} ms delay`,
        );
      }
    });

    it(
      'tells whether a job with given payload fields is unfinished: queued, running, waiting for a retry; not once finished or given up',
      testTimeout,
      async () => {
        const kind = newKind('unfinished');
        const has = (fields: Record<string, string>, ofKind = kind) =>
          store.transaction((tx) => producer(store).hasUnfinished(tx, ofKind, fields));
        await enqueue(store, kind, [{ ref: 'retried', owner: 'org_1', n: 1 }]);
        assert.equal(await has({ ref: 'retried' }), true, 'queued');
        assert.equal(await has({ ref: 'retried', owner: 'org_1' }), true, 'every field matches');
        assert.equal(await has({ ref: 'retried', owner: 'org_2' }), false);
        assert.equal(await has({ ref: 'unknown' }), false);
        assert.equal(await has({ ref: 'retried' }, newKind('unfinished-other')), false, 'another kind');

        // The first run holds until released, then asks for a retry; the queue stops before it is due.
        const running = deferred();
        const release = deferred();
        releases.push(release.resolve);
        const first = queueOn(store, { pollIntervalMs: 20 });
        await first.work(
          {
            [kind]: async () => {
              running.resolve();
              await release.promise;
              throw new RetryJob(100, 'later');
            },
          },
          { concurrency: 1 },
        );
        first.notify();
        await running.promise;
        assert.equal(await has({ ref: 'retried' }), true, 'running');
        release.resolve();
        await first.stop();
        assert.equal(await has({ ref: 'retried' }), true, 'waiting for its retry');

        await enqueue(store, kind, [{ ref: 'failing' }]);
        const second = queueOn(store, { pollIntervalMs: 20, maxAttempts: 1 });
        await second.work(
          {
            [kind]: async (job) => {
              if ((job.payload as { ref: string }).ref === 'failing') throw new Error('boom');
            },
          },
          { concurrency: 2 },
        );
        second.notify();
        await waitFor(
          'the retry to finish and the failing job to be given up',
          async () => (await pending(kind)) === 0,
        );
        assert.equal(await has({ ref: 'retried' }), false, 'finished');
        assert.equal(await has({ ref: 'failing' }), false, 'given up');
      },
    );

    it(
      'retries a job whose handler throws unexpectedly, with backoff, and gives it up after maxAttempts',
      testTimeout,
      async () => {
        const kind = newKind('give-up');
        const maxAttempts = 4;
        // 100× faster time: the 1 s, 2 s, 4 s backoff takes 70 ms of wall time.
        const queueClock = fast();
        const calls: { attempts: number; at: number }[] = [];
        const queue = queueOn(
          store,
          { pollIntervalMs: 20, maxAttempts, leaseMs: 600_000, retryDelayMs: second },
          queueClock,
        );
        await queue.work(
          {
            [kind]: async (job) => {
              calls.push({ attempts: job.attempts, at: queueClock.now() });
              throw new Error('boom');
            },
          },
          { concurrency: 1 },
        );
        await enqueue(store, kind, [{}], queueClock.now());
        queue.notify();
        await waitFor(
          `the job to be given up after ${maxAttempts} attempts`,
          async () => calls.length >= maxAttempts && (await pending(kind)) === 0,
        );
        await sleep(500); // 50 s of the queue's time: well past any further backoff
        assert.deepEqual(
          calls.map((call) => call.attempts),
          [1, 2, 3, 4],
          `the handler was called exactly maxAttempts (${maxAttempts}) times`,
        );
        for (let i = 1; i < calls.length; i++) {
          const gap = calls[i]!.at - calls[i - 1]!.at;
          const backoff = second * 2 ** (i - 1);
          assert.ok(
            gap >= backoff,
            `retry ${i} came ${gap} ms (queue time) after the failure, backing off at least ${backoff} ms`,
          );
        }
        assert.equal(await pending(kind), 0, 'a job given up is no longer pending');
        // Kept for operators (`visualizer jobs dead`), whichever queue engine gave it up.
        const dead = await queue.deadLetters.list({ kind, limit: 10 });
        assert.equal(dead.length, 1, 'a job given up is in the dead-letter list');
        assert.equal(dead[0]!.failures, maxAttempts);
        assert.match(dead[0]!.lastError ?? '', /boom/);
      },
    );

    it('waits retryDelayMs after a first failure, not the default second', testTimeout, async () => {
      const kind = newKind('retry-delay');
      let runs = 0;
      const queue = queueOn(store, { pollIntervalMs: 20, retryDelayMs: 600_000 });
      await queue.work(
        {
          [kind]: async () => {
            runs++;
            throw new Error('boom');
          },
        },
        { concurrency: 1 },
      );
      await enqueue(store, kind, [{}]);
      queue.notify();
      await waitFor('the first run', async () => runs === 1);
      await queue.stop(); // waits for the failure to be recorded
      await sleep(1_200); // past the default delay, so a queue that ignored the setting has the job due again
      assert.equal(await claimAs(store, kind, 'next', 1_000), undefined, 'the retry is ten minutes away');
      assert.equal(await pending(kind), 1, 'and the job is kept for it');
    });

    it(
      'never gives up a job because the database was unavailable: it runs again until it succeeds',
      testTimeout,
      async () => {
        const kind = newKind('outage');
        const maxAttempts = 2;
        const queueClock = fast();
        assert.ok(store.isUnavailable(unavailable()));
        const calls: number[] = [];
        const queue = queueOn(
          store,
          { pollIntervalMs: 20, maxAttempts, leaseMs: 600_000, retryDelayMs: second },
          queueClock,
        );
        await queue.work(
          {
            [kind]: async (job) => {
              calls.push(job.attempts);
              if (job.attempts <= 4) throw unavailable();
            },
          },
          { concurrency: 1 },
        );
        await enqueue(store, kind, [{}], queueClock.now());
        queue.notify();
        await waitFor(
          'the job to succeed after the outage',
          async () => calls.length >= 5 && (await pending(kind)) === 0,
        );
        assert.deepEqual(calls, [1, 2, 3, 4, 5], `ran past maxAttempts (${maxAttempts}), until the handler succeeded`);
      },
    );

    /** Runs a job whose nth run does `script[n - 1]`; resolves with each run's (attempts, failures) once it is gone. */
    async function runScripted(script: (() => void)[], maxAttempts: number) {
      const kind = newKind('scripted');
      const queueClock = fast(); // backoffs of seconds pass in milliseconds (on the queue's own clock)
      const runs: [attempts: number, failures: number][] = [];
      const queue = queueOn(
        store,
        { pollIntervalMs: 20, maxAttempts, leaseMs: 600_000, retryDelayMs: second },
        queueClock,
      );
      await queue.work(
        {
          [kind]: async (job) => {
            runs.push([job.attempts, job.failures]);
            script[job.attempts - 1]?.();
          },
        },
        { concurrency: 1 },
      );
      await enqueue(store, kind, [{}], queueClock.now());
      queue.notify();
      await waitFor('the job to be finished or given up', async () => (await pending(kind)) === 0);
      await sleep(300); // 30 s of the queue's time: a further run would show up
      return runs;
    }
    const postpone = () => {
      throw new PostponeJob(second, 'image storage is away');
    };

    it(
      'counts runs that threw RetryJob or an error as failures, and runs an outage postponed as attempts only',
      testTimeout,
      async () => {
        const runs = await runScripted(
          [
            postpone,
            () => {
              throw unavailable();
            },
            () => {
              throw new RetryJob(second, 'the engine answered 503');
            },
            () => {
              throw new Error('boom');
            },
          ],
          5,
        );
        assert.deepEqual(runs, [
          [1, 0],
          [2, 0],
          [3, 0],
          [4, 1],
          [5, 2],
        ]);
      },
    );

    it(
      'gives a job up after maxAttempts failures, however many postponed runs come between them',
      testTimeout,
      async () => {
        const boom = () => {
          throw new Error('boom');
        };
        const runs = await runScripted([postpone, postpone, boom, postpone, boom], 2);
        assert.deepEqual(
          runs,
          [
            [1, 0],
            [2, 0],
            [3, 0],
            [4, 1],
            [5, 1],
          ],
          'given up at its second failure, the fifth run',
        );
      },
    );

    it(
      "records a run's outcome once the database answers again, rather than losing it with the lease",
      testTimeout,
      async () => {
        const kind = newKind('record-outage');
        const runs: [attempts: number, failures: number][] = [];
        const queueOwn = open(); // its own handle, so the patch below touches no other test's queue
        let refused = 0;
        const refuse = () => refused < 3 && ++refused > 0;
        options.refuseOutcomes(queueOwn, refuse, unavailable);
        // A ten-minute lease: without the outcome recorded, the job would not run again within the test.
        const queue = queueOn(queueOwn, { pollIntervalMs: 20, leaseMs: 600_000 });
        await queue.work(
          {
            [kind]: async (job) => {
              runs.push([job.attempts, job.failures]);
              if (job.attempts === 1) postpone();
            },
          },
          { concurrency: 1 },
        );
        await enqueue(store, kind, [{}]);
        queue.notify();
        await waitFor('the postponed job to run again and finish', async () => (await pending(kind)) === 0);
        assert.equal(refused, 3, 'the database refused the outcome three times');
        assert.deepEqual(
          runs,
          [
            [1, 0],
            [2, 0],
          ],
          'recorded as postponed, not lost with the lease (which would count a failure)',
        );
      },
    );

    it(
      'on a stop past its deadline, aborts the running handlers and releases their jobs at once, not as failures',
      testTimeout,
      async () => {
        const kind = newKind('stop-deadline');
        const started = deferred();
        let aborted = false;
        const queue = queueOn(store, { pollIntervalMs: 20, leaseMs: 600_000 });
        await queue.work(
          {
            [kind]: async (_job, { signal }) => {
              started.resolve();
              await new Promise((_resolve, reject) =>
                signal.addEventListener('abort', () => ((aborted = true), reject(signal.reason)), { once: true }),
              );
            },
          },
          { concurrency: 1 },
        );
        await enqueue(store, kind, [{}]);
        queue.notify();
        await started.promise;
        await queue.stop(100);
        assert.ok(aborted, 'the handler saw its signal aborted');
        assert.equal(await pending(kind), 1, 'the job is kept');
        // Its lease had 10 minutes to run: a claim now succeeds only because the job was released.
        const released = await claimAs(store, kind, 'next', 1_000);
        assert.deepEqual(
          [released?.attempts, released?.failures],
          [2, 0],
          'released at once, and not counted as a failure',
        );
        assert.equal(await released!.complete(), true);
      },
    );

    it('on a stop, lets handlers that finish within the deadline finish, unaborted', testTimeout, async () => {
      const kind = newKind('stop-in-time');
      const started = deferred();
      const seen: boolean[] = [];
      const queue = queueOn(store, { pollIntervalMs: 20 });
      await queue.work(
        {
          [kind]: async (_job, { signal }) => {
            started.resolve();
            await sleep(200);
            seen.push(signal.aborted);
          },
        },
        { concurrency: 1 },
      );
      await enqueue(store, kind, [{}]);
      queue.notify();
      await started.promise;
      await queue.stop(20_000);
      assert.deepEqual(seen, [false], 'it ran to the end, its signal never aborted');
      assert.equal(await pending(kind), 0, 'and finished its job');
    });

    it(
      'on a stop, leaves a handler that ignores its aborted signal to its lease, and still returns',
      testTimeout,
      async () => {
        const kind = newKind('stop-ignored');
        const started = deferred();
        const gate = deferred();
        releases.push(gate.resolve);
        const queue = queueOn(store, { pollIntervalMs: 20, leaseMs: 600_000 });
        await queue.work(
          {
            [kind]: async () => {
              started.resolve();
              await gate.promise;
            },
          },
          { concurrency: 1 },
        );
        await enqueue(store, kind, [{}]);
        queue.notify();
        await started.promise;
        await queue.stop(50); // returns although the handler is still running
        const claimed = await claimAs(store, kind, 'next', 1_000);
        assert.equal(claimed, undefined, 'the job keeps its lease');
        gate.resolve();
        await waitFor('the late handler to finish its job', async () => (await pending(kind)) === 0);
      },
    );

    it("claims a dead worker's job again once its lease expires", testTimeout, async () => {
      const kind = newKind('dead-worker');
      const leaseMs = options.minLeaseMs ?? 200;
      // Enqueued through a queue with that lease, for a queue whose jobs carry their lease from their sender.
      await enqueue(store, kind, [{ orphan: true }], clock.now(), queueOn(store, { leaseMs }));
      const claimedAt = clock.now();
      const dead = await claimAs(store, kind, 'dead', leaseMs);
      assert.equal(dead?.attempts, 1);
      // The dead worker never completes it.
      const runs: {
        attempts: number;
        failures: number;
        at: number;
        deadCanComplete: boolean;
        deadCanReschedule: boolean;
      }[] = [];
      const queue = queueOn(store, { pollIntervalMs: 20, leaseMs });
      await queue.work(
        {
          [kind]: async (job) => {
            const at = clock.now();
            // While the live worker holds the lease, the dead one's late calls change nothing.
            const deadCanReschedule = fences && (await dead!.reschedule());
            const deadCanComplete = fences && (await dead!.complete());
            runs.push({ attempts: job.attempts, failures: job.failures, at, deadCanComplete, deadCanReschedule });
          },
        },
        { concurrency: 1 },
      );
      queue.notify();
      await waitFor('the orphaned job to run', async () => runs.length > 0 && (await pending(kind)) === 0);
      await sleep(200);
      assert.equal(runs.length, 1, 'it ran once');
      assert.equal(runs[0]!.attempts, 2, 'the dead worker’s claim counted as attempt 1');
      assert.equal(runs[0]!.failures, 1, 'and its lost lease as a failure');
      assert.ok(
        runs[0]!.at >= claimedAt + leaseMs,
        `not taken over before the lease expired (${runs[0]!.at - claimedAt} ms)`,
      );
      assert.equal(runs[0]!.deadCanReschedule, false, 'a worker that lost its lease cannot reschedule the job');
      assert.equal(runs[0]!.deadCanComplete, false, 'a worker that lost its lease cannot complete the job');
    });

    it(
      "extends a live worker's lease while its handler runs, so no other worker takes the job",
      testTimeout,
      async () => {
        const kind = newKind('long-handler');
        const leaseMs = 1_500;
        const runs: { attempts: number; handle: string }[] = [];
        const handler =
          (handle: string): JobHandler =>
          async (job) => {
            runs.push({ attempts: job.attempts, handle });
            await sleep(3 * leaseMs);
          };
        const first = queueOn(store, { leaseMs, pollIntervalMs: 20 });
        const second = queueOn(other, { leaseMs, pollIntervalMs: 20 });
        await first.work({ [kind]: handler('first') }, { concurrency: 2 });
        await second.work({ [kind]: handler('second') }, { concurrency: 2 });
        await enqueue(store, kind, [{}]);
        first.notify();
        await waitFor('the long job to finish', async () => runs.length > 0 && (await pending(kind)) === 0);
        await sleep(300);
        assert.equal(
          runs.length,
          1,
          `the job ran once, though its handler took 3× the lease (runs: ${JSON.stringify(runs)})`,
        );
        assert.equal(runs[0]!.attempts, 1);
      },
    );

    it('gives each job to exactly one of several competing workers on separate handles', testTimeout, async (t) => {
      const kind = newKind('contention');
      const workers = options.sharedConnection ? [store, other] : [store, other, third];
      await enqueue(
        store,
        kind,
        Array.from({ length: 60 }, (_, n) => ({ n })),
      );
      const runs = new Map<string, string[]>();
      const payloads = new Set<number>();
      const started = workers.map((persistence, index) => {
        const queue = queueOn(persistence, { pollIntervalMs: 20 });
        return queue
          .work(
            {
              [kind]: async (job) => {
                runs.set(job.id, [...(runs.get(job.id) ?? []), `worker ${index}`]);
                payloads.add((job.payload as { n: number }).n);
                await sleep(Math.floor(Math.random() * 10));
              },
            },
            { concurrency: 4 },
          )
          .then(() => queue.notify());
      });
      await Promise.all(started);
      await waitFor('all 60 jobs to finish', async () => (await pending(kind)) === 0);
      await sleep(300);
      const duplicates = [...runs].filter(([, by]) => by.length > 1);
      assert.deepEqual(duplicates, [], 'no job ran twice');
      assert.equal(runs.size, 60, 'every job ran');
      assert.equal(payloads.size, 60, 'each of them once');
      const share = new Map<string, number>();
      for (const [by] of runs.values()) share.set(by!, (share.get(by!) ?? 0) + 1);
      t.diagnostic(`jobs per worker: ${JSON.stringify(Object.fromEntries(share))}`);
    });

    it('stop() waits for running handlers to finish, then claims nothing more', testTimeout, async () => {
      const kind = newKind('stop');
      await enqueue(
        store,
        kind,
        Array.from({ length: 5 }, (_, n) => ({ n })),
      );
      const gate = deferred();
      releases.push(gate.resolve);
      const started: string[] = [];
      const finished: string[] = [];
      const queue = queueOn(store, { pollIntervalMs: 20 });
      await queue.work(
        {
          [kind]: async (job) => {
            started.push(job.id);
            await gate.promise;
            finished.push(job.id);
          },
        },
        { concurrency: 2 },
      );
      // A claim the database refused is retried with a growing delay, so the bound leaves room for a few.
      await waitFor('two handlers to start', () => started.length >= 2, 50_000).catch((error: Error) => {
        throw new Error(
          `${error.message}; ${started.length} started; the queue logged: ${queueLog.slice(-5).join(' | ')}`,
        );
      });
      assert.equal(started.length, 2, 'no more handlers than the concurrency');
      let finishedWhenStopped: number | undefined;
      const stopping = queue.stop().then(() => void (finishedWhenStopped = finished.length));
      await sleep(300);
      assert.equal(finishedWhenStopped, undefined, 'stop() is still waiting for the running handlers');
      gate.resolve();
      await stopping;
      assert.equal(finishedWhenStopped, 2, 'stop() resolved only after both handlers finished');
      assert.equal(await pending(kind), 3, 'the two finished jobs were completed; three were never claimed');

      await enqueue(store, kind, [{ n: 5 }]);
      queue.notify();
      await sleep(500);
      assert.equal(started.length, 2, 'a stopped queue starts no more handlers');
      assert.equal(await pending(kind), 4);

      // Nothing was lost: another worker runs what the stopped one left.
      const successor = queueOn(other, { pollIntervalMs: 20 });
      await successor.work({ [kind]: async (job) => void started.push(job.id) }, { concurrency: 2 });
      successor.notify();
      await waitFor('the successor to run the rest', async () => (await pending(kind)) === 0);
      assert.equal(new Set(started).size, 6);
      assert.equal(started.length, 6);
    });
  });
}
