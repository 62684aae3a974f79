import { randomFillSync } from 'node:crypto';
import { definePlugin, type IdGenerator } from '../../kit/plugin.ts';

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

/** `ms` as `width` base62 digits; the alphabet is in ASCII order, so the strings sort as the numbers do. */
function base62Time(ms: number, width: number): string {
  let out = '';
  for (let rest = ms; out.length < width; rest = Math.floor(rest / alphabet.length))
    out = alphabet[rest % alphabet.length] + out;
  return out;
}

/**
 * Ids start with the time (8 base62 digits of epoch ms, good until the year 8888) and end with 16
 * random characters (95 bits, unguessable). Time-ordered keys keep every index insert near the
 * right edge of its B-tree: a transaction, or a group of them, dirties a few pages instead of one
 * random page per index per row, which halves the cost of a batched commit on SQLite (see
 * bench/README.md) and keeps Postgres' indexes compact. The time they reveal is in `createdAt` anyway.
 */
export const randomIds: IdGenerator = {
  id: (prefix) => prefix + base62Time(Date.now(), 8) + randomBase62(16),
  secret: (length) => randomBase62(length),
};

export default definePlugin({
  name: 'ids-random',
  provides: ['ids'],
  register() {
    return { ids: randomIds };
  },
});
