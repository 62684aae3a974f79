import type { Ports } from '../ports/index.ts';
import type { Logger } from '../logger.ts';
import { hashKey, hashesEqual, keyPrefixes, kindOfKey } from '../domain/api-keys.ts';
import { ApiError, type ApiErrorCode } from '../domain/errors.ts';
import type { ApiKey, ApiKeyKind } from '../domain/api-keys.ts';

export type Authenticator = ReturnType<typeof authenticator>;

/** How often `lastUsedAt` is refreshed: often enough to audit, rarely enough to keep reads read-only. */
const touchIntervalMs = 60_000;

const fail = (code: ApiErrorCode, message: string) => new ApiError('authentication_error', code, message);

const expected: Record<ApiKeyKind, string> = {
  secret: `a secret API key (${keyPrefixes.secret}…)`,
  conversion: `a conversion key (${keyPrefixes.conversion}…)`,
};

/** Checks an `Authorization: Bearer <key>` header against the stored key hashes. */
export function authenticator({
  persistence,
  clock,
  logger,
}: Pick<Ports, 'persistence' | 'clock'> & { logger: Logger }) {
  return {
    async authenticate(authorization: string | null, kind: ApiKeyKind): Promise<ApiKey> {
      if (!authorization)
        throw fail(
          'missing_api_key',
          `No API key provided. Send 'Authorization: Bearer <key>' with ${expected[kind]}.`,
        );
      const match = /^Bearer +(\S+) *$/i.exec(authorization);
      if (!match) throw fail('malformed_authorization', "The Authorization header must be 'Bearer <key>'.");
      const presented = match[1]!;
      const claimed = kindOfKey(presented);
      if (claimed !== kind) {
        throw fail(
          'invalid_api_key',
          claimed
            ? `This endpoint takes ${expected[kind]}, not ${expected[claimed]}.`
            : `Invalid API key: expected ${expected[kind]}.`,
        );
      }
      const keyHash = hashKey(presented);
      const stored = await persistence.apiKeys.findByHash(keyHash);
      // The index lookup finds the row; the constant-time compare is what decides.
      if (!stored || !hashesEqual(stored.keyHash, keyHash) || stored.kind !== kind)
        throw fail('invalid_api_key', 'Invalid API key.');
      if (stored.revokedAt !== null) throw fail('api_key_revoked', 'This API key has been revoked.');
      const now = clock.now();
      if (stored.lastUsedAt === null || now - stored.lastUsedAt > touchIntervalMs) {
        await persistence.apiKeys
          .touch(stored.id, now)
          .catch((error) => logger.warn('could not record key use', { keyId: stored.id, error: String(error) }));
      }
      const { keyHash: _hash, ...key } = stored;
      return key;
    },
  };
}
