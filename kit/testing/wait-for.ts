import { setTimeout as sleep } from 'node:timers/promises';

/** Polls `predicate` every 10 ms until it holds; throws, naming `what`, after `timeoutMs` (generous by default: CI machines are slow). */
export async function waitFor(what: string, predicate: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}
