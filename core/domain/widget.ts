import { dayMs } from './attribution.ts';
import { ApiError, type ApiErrorCode } from './errors.ts';
import { creditCost, type GenerationMode, type ImageSize } from './generation.ts';

/** An embeddable widget: the keyless browser calls of one store, limited to its origins and daily caps. */
export interface WidgetRecord {
  id: string;
  organizationId: string;
  storeId: string;
  mode: GenerationMode;
  imageSize: ImageSize;
  /** Origins (`https://shop.example`, `http://localhost:3000`) whose pages may call the keyless widget endpoints. */
  allowedOrigins: string[];
  /** Generations the widget may make per UTC day, failed ones included. */
  dailyGenerationCap: number;
  /** Credits the widget's generations may spend per UTC day (a failed one's are refunded, so not spent); null: no cap. */
  dailyCreditCap: number | null;
  createdAt: number;
}

/** What a widget's generations used on one UTC day. */
export interface WidgetDayUsage {
  /** Generations made, failed ones included. */
  generations: number;
  /** Credits spent: those charged, less those refunded (a failed generation's). */
  credits: number;
}

/** The caps a generation is counted against; null: none. */
export interface WidgetCaps {
  generations: number | null;
  credits: number | null;
}

export const noUsage: WidgetDayUsage = { generations: 0, credits: 0 };

/** The UTC day (days since 1970-01-01) of an epoch-ms time: the day a widget's caps count in. */
export const utcDayOf = (at: number) => Math.floor(at / dayMs);

/** `YYYY-MM-DD` of a UTC day number. */
export const utcDate = (day: number) => new Date(day * dayMs).toISOString().slice(0, 10);

export const capsOf = (widget: Pick<WidgetRecord, 'dailyGenerationCap' | 'dailyCreditCap'>): WidgetCaps => ({
  generations: widget.dailyGenerationCap,
  credits: widget.dailyCreditCap,
});

/** Which cap one more generation costing `credits` would pass, or null when it fits within both. */
export function capPassed(caps: WidgetCaps, usage: WidgetDayUsage, credits: number): 'generations' | 'credits' | null {
  if (caps.generations !== null && usage.generations + 1 > caps.generations) return 'generations';
  if (caps.credits !== null && usage.credits + credits > caps.credits) return 'credits';
  return null;
}

/**
 * The refusal of a widget's generation past one of its daily caps, a limit (`rate_limit_error`)
 * that runs out until midnight UTC, when the day's count starts again.
 */
export function dailyCapReached(cap: 'generations' | 'credits', caps: WidgetCaps, now: number): ApiError {
  const retryAfter = Math.max(1, Math.ceil(((utcDayOf(now) + 1) * dayMs - now) / 1000));
  const [code, message]: [ApiErrorCode, string] =
    cap === 'generations'
      ? [
          'daily_cap_reached',
          `This widget has made its ${caps.generations} generations for today (UTC); it makes more after midnight UTC.`,
        ]
      : // No figures: the message reaches shoppers' consoles, and a shop's budget is its own.
        [
          'daily_credit_cap_reached',
          "Another generation would pass this widget's daily credit cap for today (UTC); it makes more after midnight UTC.",
        ];
  return new ApiError('rate_limit_error', code, message, null, { retryAfterSeconds: retryAfter });
}

/** A credit cap must allow at least one generation of the widget's size, or the widget could make none at all. */
export function checkCreditCap(cap: number | null, imageSize: ImageSize): void {
  if (cap === null || cap >= creditCost[imageSize]) return;
  const cost = creditCost[imageSize];
  throw new ApiError(
    'invalid_request_error',
    'parameter_invalid',
    `dailyCreditCap: must be at least ${cost}, the cost of one ${imageSize} generation (or null for no cap).`,
    'dailyCreditCap',
  );
}
