import { errorResponses, ok, pageParameters, queryErrors, secretKeyErrors, serverErrors } from '../helpers.ts';
import type { PathFragment } from '../types.ts';

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
