import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../plugin.ts';

export interface ClockContractOptions<C extends Clock = Clock> {
  name: string;
  create(): C | Promise<C>;
  dispose?(clock: C): void | Promise<void>;
  /**
   * True for a clock that tells the real time (the default): it must agree with the system clock
   * and advance with it. A test clock that only moves when told passes false.
   */
  wallClock?: boolean;
}

/** The clock contract: whole milliseconds since the Unix epoch, never going backwards. */
export function clockContract<C extends Clock>(options: ClockContractOptions<C>) {
  const wallClock = options.wallClock ?? true;
  describe(`clock contract: ${options.name}`, () => {
    let clock: C;
    before(async () => {
      clock = await options.create();
    });
    after(async () => options.dispose?.(clock));

    it('tells whole milliseconds since the Unix epoch, which make valid ISO 8601 timestamps', () => {
      const now = clock.now();
      assert.ok(Number.isSafeInteger(now) && now >= 0, `now() gave ${now}`);
      assert.match(new Date(now).toISOString(), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

    it('never goes backwards from one reading to the next', async () => {
      let previous = clock.now();
      for (let n = 0; n < 10_000; n++) {
        const next = clock.now();
        assert.ok(next >= previous, `went from ${previous} back to ${next}`);
        previous = next;
        if (n % 1_000 === 0) await sleep(1);
      }
    });

    if (wallClock) {
      it('agrees with the system clock and advances with real time', async () => {
        assert.ok(Math.abs(clock.now() - Date.now()) < 1_000, `${clock.now()} is not near ${Date.now()}`);
        const start = clock.now();
        const started = performance.now();
        await sleep(100);
        const advanced = clock.now() - start;
        const elapsed = performance.now() - started;
        assert.ok(advanced >= 90 && advanced <= elapsed + 50, `advanced ${advanced} ms in ${Math.round(elapsed)} ms`);
      });
    }
  });
}
