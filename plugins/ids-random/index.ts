import { randomFillSync } from 'node:crypto';
import { asValue } from 'awilix';
import { definePlugin } from '../../core/plugin.ts';
import type { IdGenerator } from '../../core/ports/ids.ts';

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Bytes at or above this value are dropped so every base62 character is equally likely. */
const unbiasedLimit = 256 - (256 % alphabet.length);

/** Random bytes drawn in blocks: one system call serves many ids. */
const pool = Buffer.alloc(4096);
let offset = pool.length;

function nextByte(): number {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  return pool[offset++]!;
}

export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = nextByte();
    if (byte < unbiasedLimit) out += alphabet[byte % alphabet.length];
  }
  return out;
}

export const randomIds: IdGenerator = {
  id: (prefix) => prefix + randomBase62(24),
  secret: (length) => randomBase62(length),
};

export default definePlugin({
  name: 'random',
  provides: ['ids'],
  register({ container }) {
    container.register({ ids: asValue(randomIds) });
  },
});
