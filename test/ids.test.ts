import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { idsContract } from 'visualizer/testing';
import { randomIds } from '../plugins/ids-random/index.ts';

idsContract({ name: 'random', create: () => randomIds });

describe('ids (random plugin)', () => {
  it('are the prefix and 24 base62 characters, all different', () => {
    const ids = Array.from({ length: 10_000 }, () => randomIds.id('agen_'));
    for (const id of ids.slice(0, 100)) assert.match(id, /^agen_[0-9A-Za-z]{24}$/);
    assert.equal(new Set(ids).size, ids.length);
    // Within one millisecond only the random tail differs, and it does: 16 characters of it.
    assert.equal(new Set(ids.map((id) => id.slice(-16))).size, ids.length);
  });

  it('sort by the time they were made, so index inserts stay at the right edge', async () => {
    const earlier = randomIds.id('job_');
    await sleep(2);
    const later = randomIds.id('job_');
    assert.ok(earlier < later, `${earlier} sorts before ${later}`);
  });
});
