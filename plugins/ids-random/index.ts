import { randomBytes } from 'node:crypto';
import { asValue } from 'awilix';
import { definePlugin } from '../../core/plugin.ts';
import type { IdGenerator } from '../../core/ports/ids.ts';

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Bytes at or above this value are dropped so every base62 character is equally likely. */
const unbiasedLimit = 256 - (256 % alphabet.length);

export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < unbiasedLimit) out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
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
