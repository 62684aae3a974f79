/** Dates and amounts as the reader's browser formats them. */

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? iso
    : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function money(cents: number, currency: string): string {
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(2)} ${currency}`;
  }
}

/** `{ USD: 3000, EUR: 100 }` → "$30.00, €1.00"; currencies are never added together. */
export function amounts(byCurrency: Record<string, number> | null | undefined): string {
  const entries = Object.entries(byCurrency ?? {});
  return entries.length ? entries.map(([currency, cents]) => money(cents, currency)).join(', ') : '—';
}

export function percent(fraction: number | null | undefined): string {
  return fraction === null || fraction === undefined ? '—' : `${(fraction * 100).toFixed(1)} %`;
}

/** `YYYY-MM-DD` of a time, in UTC (the API's days are UTC days). */
export const isoDay = (time: number) => new Date(time).toISOString().slice(0, 10);

/** The start of a `YYYY-MM-DD` day and of the day after, as the API's ISO instants. */
export const dayStart = (day: string) => `${day}T00:00:00.000Z`;
export const dayAfter = (day: string) => new Date(Date.parse(`${day}T00:00:00.000Z`) + 86_400_000).toISOString();
