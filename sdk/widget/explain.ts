/**
 * What the shopper is told when a request is refused or a generation fails, and what the dialog
 * offers next; and the service's own reason, logged for the shop's developer.
 */
import type { WidgetApiError } from './api.ts';

/** `retry` sends the same photo again, `pick` goes back to choosing one, `none` leaves only Close. */
export type Next = 'retry' | 'pick' | 'none';

export interface Explanation {
  words: string;
  next: Next;
}

type Problem = Pick<WidgetApiError, 'status' | 'code' | 'message' | 'param'>;

const unavailable = 'Visualizations are not available right now. Please try again later.';
const productRefused = "This product can't be tried on right now.";
const photoRefused = 'This photo could not be used. Please choose another photo, such as a JPEG or PNG.';
const photoCodes = ['invalid_image', 'image_too_large', 'body_too_large'];

export function explain(problem: Problem): Explanation {
  const { status, code, param } = problem;
  // A failed generation names a product image at fault by its field (`products[0].imageUrl: …`).
  const aboutProduct = /^products\[/.test(param || '') || (status === 0 && /^products\[/.test(problem.message));
  switch (code) {
    case 'network':
      return { words: 'Could not reach the server. Check your connection and try again.', next: 'retry' };
    case 'timeout':
      return { words: 'This is taking longer than expected. Please try again.', next: 'retry' };
    case 'origin_not_allowed':
      return { words: 'This widget is not enabled for this website.', next: 'none' };
    case 'resource_missing':
    case 'route_not_found':
      return { words: 'This widget is not available.', next: 'none' };
    // The shop's own limits: the shopper is told no more (the shop's budget is its own), the log says which.
    case 'insufficient_credits':
    case 'daily_cap_reached':
    case 'daily_credit_cap_reached':
      return { words: unavailable, next: 'none' };
    case 'content_blocked':
      return {
        words: 'This photo could not be used for a visualization. Please choose a different photo.',
        next: 'pick',
      };
    case 'image_fetch_failed':
      return {
        words: 'A product image could not be loaded, so the visualization failed. Please try again later.',
        next: 'retry',
      };
  }
  if (aboutProduct) return { words: productRefused, next: 'none' };
  if (photoCodes.indexOf(code) >= 0 || param === 'image') return { words: photoRefused, next: 'pick' };
  if (status === 429)
    return { words: 'Too many tries in a short time. Please wait a minute and try again.', next: 'retry' };
  if (status === 403) return { words: unavailable, next: 'none' };
  // Any other refusal is of what the page gave (a retry would be refused alike), not of the photo.
  if (status >= 400 && status < 500) return { words: productRefused, next: 'none' };
  return { words: 'Something went wrong while creating your visualization. Please try again.', next: 'retry' };
}

/** The service's reason on the console: the shopper's words above cannot tell a developer what to fix. */
export function logProblem(problem: Problem): void {
  if (problem.code === 'network' || problem.code === 'timeout') return;
  const what = problem.status
    ? `the service answered ${problem.status} ${problem.code}`
    : `the generation failed with ${problem.code}`;
  console.error(`[Visualizer] ${what}${problem.param ? ` (param ${problem.param})` : ''}: ${problem.message}`);
}
