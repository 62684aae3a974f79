import type { GenerationRecord } from '../domain/generation.ts';
import { utcDayOf } from '../domain/widget.ts';
import type { Repositories } from '../ports/persistence/index.ts';

/**
 * Gives a generation's credits back, in the caller's transaction: to its organization (a
 * `generation_refund` ledger entry) and, when a widget made it, to the widget's UTC day of the
 * charge, whose credit cap counts credits spent (its generation count stays: the generation was
 * made). The organization's row is changed first, as the debit did, so the two never wait on
 * each other the other way round.
 */
export async function refundGeneration(
  tx: Pick<Repositories, 'credits' | 'widgets'>,
  generation: Pick<GenerationRecord, 'id' | 'organizationId' | 'widgetId' | 'creditsCharged' | 'createdAt'>,
  entry: { ledgerEntryId: string; at: number },
): Promise<void> {
  await tx.credits.grant({
    organizationId: generation.organizationId,
    amount: generation.creditsCharged,
    reason: 'generation_refund',
    reference: generation.id,
    ledgerEntryId: entry.ledgerEntryId,
    at: entry.at,
  });
  if (generation.widgetId)
    await tx.widgets.refundCredits(generation.widgetId, utcDayOf(generation.createdAt), generation.creditsCharged);
}
