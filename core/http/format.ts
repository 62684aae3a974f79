/** ISO 8601 UTC with milliseconds, the one timestamp format of every response. */
export const isoTime = (epochMs: number) => new Date(epochMs).toISOString();
export const isoTimeOrNull = (epochMs: number | null) => (epochMs === null ? null : isoTime(epochMs));
