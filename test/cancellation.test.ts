import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Cancellation } from '../core/outbound/cancellation.ts';

describe('Cancellation', () => {
  it('calls each listener once on the first abort, not after unsubscribing, and at once when already aborted', () => {
    const cancellation = new Cancellation();
    const calls: string[] = [];
    cancellation.onAbort(() => calls.push('a'));
    const off = cancellation.onAbort(() => calls.push('b'));
    off();
    cancellation.abort('first');
    cancellation.abort('second');
    assert.deepEqual(calls, ['a']);
    assert.equal(cancellation.reason, 'first');
    cancellation.onAbort(() => calls.push('late'));
    assert.deepEqual(calls, ['a', 'late']);
  });

  it('races a promise: its value, its error, or the abort reason if that comes first', async () => {
    assert.equal(await new Cancellation().race(Promise.resolve(1)), 1);
    await assert.rejects(new Cancellation().race(Promise.reject(new Error('own'))), /own/);
    const cancellation = new Cancellation();
    const pending = cancellation.race(new Promise(() => {}));
    cancellation.abort(new Error('timeout'));
    await assert.rejects(pending, /timeout/);
    await assert.rejects(cancellation.race(Promise.resolve(2)), /timeout/, 'already aborted');
  });
});
