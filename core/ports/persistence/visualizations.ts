import type { AttributionCandidate } from '../../domain/attribution.ts';

/** Read model over the generations for attribution and reports. */
export interface VisualizationRepository {
  /** Complete generations of the store created in [from, to] whose visitor or session id matches a given (non-empty) one. */
  candidates(
    storeId: string,
    match: { visitorId: string | null; sessionId: string | null; from: number; to: number },
  ): Promise<AttributionCandidate[]>;
  /** Complete generations of the store created in [from, to), and the distinct non-empty visitor ids they were made for. */
  summary(
    storeId: string,
    range: { from: number; to: number },
  ): Promise<{ visualizations: number; visitorIds: string[] }>;
}
