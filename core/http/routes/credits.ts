import type { H3 } from 'h3';
import { requireKey, services } from '../context.ts';
import { isoTime } from '../format.ts';
import type { createRateLimiter } from '../rate-limit.ts';

/** The caller's balance and its most recent ledger entries (debits, refunds, grants). */
export function creditRoutes(app: H3, limits: { read: ReturnType<typeof createRateLimiter> }) {
  app.get('/v1/credits', async (event) => {
    const key = await requireKey(event, 'secret');
    limits.read.take(key.id);
    const { persistence } = services(event);
    const [organization, ledger] = await Promise.all([persistence.organizations.get(key.organizationId), persistence.credits.ledger(key.organizationId, 50)]);
    return {
      object: 'credit_balance',
      balance: organization?.creditBalance ?? 0,
      ledger: ledger.map((entry) => ({
        id: entry.id,
        delta: entry.delta,
        balanceAfter: entry.balanceAfter,
        reason: entry.reason,
        reference: entry.reference,
        createdAt: isoTime(entry.createdAt),
      })),
    };
  });
}
