import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { IdGenerator } from '../plugin.ts';

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // Bytes of 248 and above are dropped so that every character is equally likely.
      if (byte < 248 && out.length < length) out += alphabet[byte % 62];
    }
  }
  return out;
}

/**
 * Ids of the documented shape from node:crypto, for suites and tests that need ids besides the
 * adapter under test (a job's id, an organization's), so they depend on no ids plugin.
 */
export const testIds: IdGenerator = {
  id: (prefix) => prefix + base62(24),
  secret: (length) => base62(length),
};

export interface IdsContractOptions<Ids extends IdGenerator = IdGenerator> {
  name: string;
  /** A generator as one process would have it; called once more to stand in for a second process. */
  create(): Ids | Promise<Ids>;
  dispose?(ids: Ids): void | Promise<void>;
}

/** Over `ids`, the character positions (from the end) that take at least `distinct` different characters. */
function varyingPositions(ids: string[], width: number, distinct: number): number {
  let varying = 0;
  for (let position = 1; position <= width; position++) {
    if (new Set(ids.map((id) => id[id.length - position])).size >= distinct) varying++;
  }
  return varying;
}

/**
 * The id generator contract: ids are `prefix` + 24 base62 characters, unique across processes and
 * unpredictable; secrets are base62 from a cryptographic source. A timestamp at the start of an id
 * is allowed, so unpredictability is asked of 16 of its characters (95 bits), not all 24.
 */
export function idsContract<Ids extends IdGenerator>(options: IdsContractOptions<Ids>) {
  describe(`ids contract: ${options.name}`, () => {
    const made: Ids[] = [];
    let ids: Ids;
    const create = async () => {
      const generator = await options.create();
      made.push(generator);
      return generator;
    };
    before(async () => {
      ids = await create();
    });
    after(async () => {
      for (const generator of made) await options.dispose?.(generator);
    });

    it('makes ids of the prefix and 24 base62 characters, for any prefix the core uses', () => {
      for (const prefix of ['agen_', 'whe_', 'evt_', 'org_', 'job_', 'cle_', 'x_']) {
        for (let n = 0; n < 50; n++) assert.match(ids.id(prefix), new RegExp(`^${prefix}[0-9A-Za-z]{24}$`));
      }
    });

    it('never repeats an id, within one generator or between two processes', async () => {
      const first = Array.from({ length: 20_000 }, () => ids.id('agen_'));
      assert.equal(new Set(first).size, first.length);
      const second = await create();
      // Made in the same milliseconds by both generators, as two processes would.
      const interleaved = Array.from({ length: 20_000 }, (_, n) => (n % 2 ? ids : second).id('agen_'));
      assert.equal(new Set([...first, ...interleaved]).size, first.length + interleaved.length);
    });

    it('makes ids that cannot be guessed from one another: at least 16 characters vary freely', () => {
      const made = Array.from({ length: 10_000 }, () => ids.id('agen_'));
      // Over 10,000 random ids each random position shows nearly all 62 characters; a counter's
      // or a clock's positions show a handful.
      const varying = varyingPositions(made, 24, 55);
      assert.ok(varying >= 16, `only ${varying} of 24 positions vary freely`);
    });

    it('makes secrets of the length asked, every character random base62', () => {
      for (const length of [32, 43, 64]) {
        for (let n = 0; n < 20; n++) assert.match(ids.secret(length), new RegExp(`^[0-9A-Za-z]{${length}}$`));
      }
      const secrets = Array.from({ length: 4_000 }, () => ids.secret(32));
      assert.equal(new Set(secrets).size, secrets.length);
      assert.equal(varyingPositions(secrets, 32, 55), 32, 'every position of a secret varies freely');
      // 128,000 characters: each of the 62 appears about 2,065 times; a biased draw (a plain
      // `byte % 62`) shows some characters 25 % more often than others.
      const counts = new Map<string, number>();
      for (const character of secrets.join('')) counts.set(character, (counts.get(character) ?? 0) + 1);
      assert.equal(counts.size, 62, 'every base62 character appears');
      const mean = (secrets.length * 32) / 62;
      for (const [character, count] of counts)
        assert.ok(
          Math.abs(count - mean) < mean * 0.15,
          `"${character}" appears ${count} times, expected about ${Math.round(mean)}`,
        );
    });
  });
}
