import type { H3 } from 'h3';
import type { CreditLedgerEntry } from '../../domain/credits.ts';
import { validate } from '../body.ts';
import { requireKey, services } from '../context.ts';
import { isoTime } from '../format.ts';
import { pageQuerySchema, queryOf } from '../params.ts';
import type { RouteLimits } from '../rate-limit.ts';
import { errorResponses, ok, pageParameters, queryErrors, secretKeyErrors, serverErrors } from '../openapi/helpers.ts';
import type { PathFragment } from '../openapi/types.ts';

const ledgerEntryResource = (entry: CreditLedgerEntry) => ({
  id: entry.id,
  object: 'credit_ledger_entry' as const,
  delta: entry.delta,
  balanceAfter: entry.balanceAfter,
  reason: entry.reason,
  reference: entry.reference,
  createdAt: isoTime(entry.createdAt),
});

export const creditPaths: PathFragment = {
  '/v1/credits': {
    get: {
      operationId: 'getCreditBalance',
      summary: 'Get the credit balance',
      tags: ['Credits'],
      responses: { '200': ok('The balance.', 'CreditBalance'), ...errorResponses(serverErrors, secretKeyErrors) },
    },
  },
  '/v1/credits/ledger': {
    get: {
      operationId: 'listCreditLedgerEntries',
      summary: 'List credit ledger entries',
      description:
        'Every change to the balance (debits for generations, refunds of failed ones, grants), newest first.',
      tags: ['Credits'],
      parameters: pageParameters,
      responses: {
        '200': ok('A page of ledger entries.', 'CreditLedgerEntryList'),
        ...errorResponses(serverErrors, secretKeyErrors, queryErrors),
      },
    },
  },
};

/**
 * The caller's balance, and its ledger (debits, refunds, grants) as a list paged like every
 * other: the ledger grows with every generation, so it is not part of the balance's answer.
 */
export function creditRoutes(app: H3, limits: RouteLimits) {
  app.get('/v1/credits', async (event) => {
    const key = await requireKey(event, 'secret');
    await limits.read.take(key.id);
    const organization = await services(event).tenants.findOrganization(key.organizationId);
    return { object: 'credit_balance', balance: organization?.creditBalance ?? 0 };
  });

  app.get('/v1/credits/ledger', async (event) => {
    const key = await requireKey(event, 'secret');
    await limits.read.take(key.id);
    const query = validate(pageQuerySchema, queryOf(event));
    const page = await services(event).tenants.creditLedger(key.organizationId, {
      limit: Number(query.limit),
      startingAfter: query.starting_after,
    });
    return { object: 'list', data: page.data.map(ledgerEntryResource), has_more: page.hasMore };
  });
}
