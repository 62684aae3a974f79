import type { Ports } from '../ports/index.ts';
import { issueKey } from '../domain/api-keys.ts';
import { ApiError, notFound } from '../domain/errors.ts';
import type { ApiKey, ApiKeyKind } from '../domain/api-keys.ts';
import type { Repositories } from '../ports/persistence/index.ts';

export interface IssuedKey {
  /** The full key: shown once, never stored. */
  key: string;
  record: ApiKey;
}

export type TenantService = ReturnType<typeof tenantService>;

/** The longest render retention an organization may set, in days (about a hundred years); longer is null, for ever. */
export const maxRenderRetentionDays = 36_500;

function requireName(name: string, param: string) {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 200)
    throw new ApiError('invalid_request_error', 'invalid_name', `${param} must be 1 to 200 characters.`, param);
  return trimmed;
}

function requireCredits(amount: number, param: string, { positive }: { positive: boolean }) {
  if (!Number.isSafeInteger(amount) || amount < (positive ? 1 : 0)) {
    throw new ApiError(
      'invalid_request_error',
      'invalid_credits',
      `${param} must be a whole number${positive ? ' above 0' : ' of 0 or more'}.`,
      param,
    );
  }
  return amount;
}

/** Organizations, their stores, keys and credit grants: what an operator does from the CLI. */
/** Reads a newest-first list to its end, a page at a time. */
async function everyPage<T extends { id: string }>(
  read: (startingAfter: string | undefined) => Promise<{ data: T[]; hasMore: boolean }>,
): Promise<T[]> {
  const all: T[] = [];
  for (let startingAfter: string | undefined; ; ) {
    const page = await read(startingAfter);
    all.push(...page.data);
    if (!page.hasMore) return all;
    startingAfter = page.data.at(-1)!.id;
  }
}

export function tenantService({ persistence, ids, clock }: Pick<Ports, 'persistence' | 'ids' | 'clock'>) {
  async function requireOrganization(repos: Repositories, organizationId: string) {
    const organization = await repos.organizations.get(organizationId);
    if (!organization) throw notFound('organization', organizationId, 'organizationId');
    return organization;
  }

  async function issue(
    repos: Repositories,
    organizationId: string,
    kind: ApiKeyKind,
    name: string | null,
  ): Promise<IssuedKey> {
    const { key, keyHash, displayPrefix } = issueKey(kind, ids);
    const record = await repos.apiKeys.create({
      id: ids.id('key_'),
      organizationId,
      kind,
      name,
      displayPrefix,
      keyHash,
      createdAt: clock.now(),
    });
    return { key, record };
  }

  async function grant(repos: Repositories, organizationId: string, amount: number, reason: string) {
    return repos.credits.grant({ organizationId, amount, reason, ledgerEntryId: ids.id('cle_'), at: clock.now() });
  }

  return {
    /** A new organization with its first store, one secret key and one conversion key. */
    async createOrganization(input: { name: string; credits: number; storeName?: string }) {
      const name = requireName(input.name, 'name');
      const credits = requireCredits(input.credits, 'credits', { positive: false });
      return persistence.transaction(async (repos) => {
        const now = clock.now();
        const organization = await repos.organizations.create({ id: ids.id('org_'), name, createdAt: now });
        const store = await repos.stores.create({
          id: ids.id('store_'),
          organizationId: organization.id,
          name: input.storeName ? requireName(input.storeName, 'storeName') : name,
          attributionWindowDays: 7,
          createdAt: now,
        });
        const apiKey = await issue(repos, organization.id, 'secret', 'default');
        const conversionKey = await issue(repos, organization.id, 'conversion', 'default');
        const creditBalance = credits > 0 ? await grant(repos, organization.id, credits, 'initial_grant') : 0;
        return { organization: { ...organization, creditBalance }, store, apiKey, conversionKey };
      });
    },

    listOrganizations: () => persistence.organizations.list(),

    /** The organization, or 404. */
    getOrganization: (organizationId: string) => requireOrganization(persistence, organizationId),

    /** The organization, or null: for a caller whose session or key already vouches for it. */
    findOrganization: (organizationId: string) => persistence.organizations.get(organizationId),

    /** A page of the organization's credit ledger (debits, refunds, grants), newest first. */
    creditLedger: (organizationId: string, page: { limit: number; startingAfter?: string }) =>
      persistence.credits.ledger(organizationId, page),

    /**
     * Sets how many days the organization's renders are kept (1 to 36 500), or null for ever. The
     * retention sweep deletes older ones (see retentionSweep); renders made before the change count
     * from when they were made, so shortening it deletes them at the next sweep.
     */
    async setRenderRetention(organizationId: string, days: number | null) {
      if (days !== null && (!Number.isInteger(days) || days < 1 || days > maxRenderRetentionDays)) {
        throw new ApiError(
          'invalid_request_error',
          'parameter_invalid',
          `renderRetentionDays must be a whole number of days from 1 to ${maxRenderRetentionDays}, or null to keep renders for ever.`,
          'renderRetentionDays',
        );
      }
      const organization = await persistence.organizations.setRenderRetention(organizationId, days);
      if (!organization) throw notFound('organization', organizationId, 'organizationId');
      return organization;
    },

    async createStore(organizationId: string, input: { name: string; attributionWindowDays?: number }) {
      const name = requireName(input.name, 'name');
      const days = input.attributionWindowDays ?? 7;
      if (!Number.isInteger(days) || days < 1 || days > 365) {
        throw new ApiError(
          'invalid_request_error',
          'invalid_attribution_window',
          'attributionWindowDays must be a whole number from 1 to 365.',
          'attributionWindowDays',
        );
      }
      return persistence.transaction(async (repos) => {
        await requireOrganization(repos, organizationId);
        return repos.stores.create({
          id: ids.id('store_'),
          organizationId,
          name,
          attributionWindowDays: days,
          createdAt: clock.now(),
        });
      });
    },

    /** A page of the organization's stores, newest first. */
    async storePage(organizationId: string, page: { limit: number; startingAfter?: string }) {
      await requireOrganization(persistence, organizationId);
      return persistence.stores.list(organizationId, page);
    },

    /** Every store of the organization, newest first (an operator's listing; organizations have a few). */
    async listStores(organizationId: string) {
      await requireOrganization(persistence, organizationId);
      return everyPage((startingAfter) => persistence.stores.list(organizationId, { limit: 100, startingAfter }));
    },

    async createKey(organizationId: string, kind: ApiKeyKind, name: string | null = null) {
      return persistence.transaction(async (repos) => {
        await requireOrganization(repos, organizationId);
        return issue(repos, organizationId, kind, name === null ? null : requireName(name, 'name'));
      });
    },

    /** A page of the organization's keys, newest first. */
    async keyPage(organizationId: string, page: { limit: number; startingAfter?: string; kind?: ApiKeyKind }) {
      await requireOrganization(persistence, organizationId);
      return persistence.apiKeys.list(organizationId, page);
    },

    /** Every key of the organization, newest first (an operator's listing). */
    async listKeys(organizationId: string) {
      await requireOrganization(persistence, organizationId);
      return everyPage((startingAfter) => persistence.apiKeys.list(organizationId, { limit: 100, startingAfter }));
    },

    async revokeKey(organizationId: string, keyId: string) {
      const key = await persistence.apiKeys.revoke(organizationId, keyId, clock.now());
      if (!key) throw notFound('key', keyId, 'keyId');
      return key;
    },

    async addCredits(organizationId: string, amount: number, reason = 'manual_grant') {
      const credits = requireCredits(amount, 'amount', { positive: true });
      return persistence.transaction(async (repos) => {
        await requireOrganization(repos, organizationId);
        return grant(repos, organizationId, credits, reason);
      });
    },
  };
}
