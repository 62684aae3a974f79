import type { ApiKey, ApiKeyKind, NewApiKey } from '../../domain/api-keys.ts';

export interface ApiKeyRepository {
  create(key: NewApiKey): Promise<ApiKey>;
  /** The key whose hash matches, with its hash, revoked or not; the caller decides what revoked means. */
  findByHash(keyHash: string): Promise<(ApiKey & { keyHash: string }) | null>;
  /** Newest first (by createdAt, then id); `startingAfter` is the id of the previous page's last key. */
  list(
    organizationId: string,
    options: { limit: number; startingAfter?: string; kind?: ApiKeyKind },
  ): Promise<{ data: ApiKey[]; hasMore: boolean }>;
  /** Marks the key revoked; returns null when the organization has no such key. Revoking twice keeps the first time. */
  revoke(organizationId: string, keyId: string, at: number): Promise<ApiKey | null>;
  touch(keyId: string, at: number): Promise<void>;
}
