/**
 * Which registered processes a process presumes gone, and what its sweep does about them: frees
 * their limits slots (through the limits port, as for a process on another host) and deletes their
 * rows. The registry here is a list in memory; test/multi-process-faults.test.ts kills a real worker.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { silentLogger } from '../core/logger.ts';
import type { JobQueue } from '../core/ports/job-queue.ts';
import type { Limits } from '../core/ports/limits.ts';
import type { ProcessRecord } from '../core/ports/queue-tables/index.ts';
import { goneProcesses, pidExists, pidNamespace, sweepGoneProcesses } from '../core/services/gone-processes.ts';
import { createMemoryLimits } from '../plugins/limits-memory/index.ts';

const now = 1_000_000;
const liveWindowMs = 30_000;
/** The pid of a process that has exited. */
const deadPid = spawnSync(process.execPath, ['-e', '']).pid!;

const record = (id: string, overrides: Partial<ProcessRecord> = {}, details: Record<string, unknown> = {}) => ({
  id,
  hostname: 'host-a',
  role: 'worker' as const,
  pid: process.pid,
  startedAt: now - 60_000,
  seenAt: now - 1_000,
  details: { pidNamespace: pidNamespace(), limitsInstance: `instance-${id}`, ...details },
  ...overrides,
});

describe('processes presumed gone', () => {
  const self = record('self');
  const vantage = { self, now, liveWindowMs, pidExists };

  it('a process not seen within the live window, on any host', () => {
    const stale = record('stale', { hostname: 'host-b', seenAt: now - liveWindowMs - 1 });
    const fresh = record('fresh', { hostname: 'host-b', seenAt: now - liveWindowMs + 1 });
    assert.deepEqual(
      goneProcesses([self, stale, fresh], vantage).map((gone) => gone.id),
      ['stale'],
    );
  });

  it('a process on this host whose pid no longer exists, seen however lately', () => {
    assert.equal(pidExists(deadPid), false);
    const killed = record('killed', { pid: deadPid, seenAt: now });
    const elsewhere = record('elsewhere', { pid: deadPid, hostname: 'host-b' });
    // The same host name in another pid namespace (a container sharing its host's name): its pids are not ours to read.
    const container = record('container', { pid: deadPid }, { pidNamespace: 'pid:[1]' });
    const running = record('running', { pid: process.ppid });
    assert.deepEqual(
      goneProcesses([self, killed, elsewhere, container, running], vantage).map((gone) => gone.id),
      ['killed'],
    );
  });

  it('never this process itself, even when its own row looks stale', () => {
    assert.deepEqual(goneProcesses([{ ...self, seenAt: 0, pid: deadPid }], vantage), []);
  });
});

describe('the sweep for gone processes', () => {
  /** A registry in memory and limits whose releases are recorded. */
  function setup(rows: ProcessRecord[], releaseInstance?: Limits['releaseInstance']) {
    const registry = new Map(rows.map((row) => [row.id, row]));
    const released: string[] = [];
    const limits: Limits = {
      ...createMemoryLimits(),
      instance: 'instance-self',
      releaseInstance:
        releaseInstance ??
        (async (instance) => {
          released.push(instance);
          return 2;
        }),
    };
    const queue = {
      processes: {
        listSeenSince: async (since: number) => [...registry.values()].filter((row) => row.seenAt >= since),
        remove: async (id: string) => void registry.delete(id),
      },
    } as unknown as JobQueue;
    const deps = { queue, limits, clock: { now: () => now }, logger: silentLogger };
    return { registry, released, deps };
  }

  it("frees a gone process's slots by its limits instance and deletes its row; live ones are left alone", async () => {
    const self = record('self');
    const killed = record('killed', { pid: deadPid });
    const stale = record('stale', { hostname: 'host-b', seenAt: now - liveWindowMs - 1 });
    // A row of a release that recorded no instance is deleted too: nothing of it can be freed.
    const older = record('older', { pid: deadPid }, { limitsInstance: undefined });
    const alive = record('alive', { hostname: 'host-b' });
    const { registry, released, deps } = setup([self, killed, stale, older, alive]);
    const gone = await sweepGoneProcesses(deps, { self, liveWindowMs });
    assert.deepEqual(gone.map((row) => row.id).sort(), ['killed', 'older', 'stale']);
    assert.deepEqual(released.sort(), ['instance-killed', 'instance-stale']);
    assert.deepEqual([...registry.keys()].sort(), ['alive', 'self']);
  });

  it('keeps the row of a process whose slots could not be freed, for the next sweep', async () => {
    const self = record('self');
    const killed = record('killed', { pid: deadPid });
    const { registry, deps } = setup([self, killed], async () => {
      throw new Error('the limits store failed');
    });
    await assert.rejects(sweepGoneProcesses(deps, { self, liveWindowMs }), /the limits store failed/);
    assert.ok(registry.has('killed'));
  });
});
