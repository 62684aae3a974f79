import { conversionLimits } from './conversion-input.ts';
import { characterCount, isStorableText } from './text.ts';

/**
 * A widget visitor's data (GDPR Articles 15 and 17): what the service holds about a `visitorId`
 * in an organization, and the record of erasing it.
 *
 * What is held: the generations the visitor made through a widget (photo reference, products,
 * images, its session id), the identities the SDK's `identify` linked to it (user id, traits, the
 * session id), and the conversions reported with its visitor id or with one of its session ids.
 * Erasing deletes the generations (their images with them) and the identities, and unlinks the
 * conversions: they stay, for the shop's revenue figures, without the visitor and session ids.
 */

/** Who asked for an erasure: an API key, or a dashboard user (an admin). */
export interface ErasureRequester {
  type: 'api_key' | 'user';
  id: string;
}

export type VisitorErasureStatus = 'pending' | 'complete';

/**
 * The audit record of one erasure. It holds nothing about the visitor: no visitor id, no session
 * id. While the erasure is pending the visitor id (and the session ids collected on the way) are
 * kept apart, with the work, and go when it completes.
 */
export interface VisitorErasure {
  id: string;
  organizationId: string;
  status: VisitorErasureStatus;
  requestedBy: ErasureRequester;
  requestedAt: number;
  completedAt: number | null;
  /** Generations deleted so far (their images are deleted by jobs of their own). */
  generationsDeleted: number;
  /** Identity records deleted so far (one per store the visitor was identified in). */
  identitiesDeleted: number;
  /** Conversions whose visitor and session ids were removed so far; they themselves stay. */
  conversionsUnlinked: number;
}

/** What one step of an erasure did, added to the record's counts in the step's transaction. */
export type ErasureProgress = Partial<
  Pick<VisitorErasure, 'generationsDeleted' | 'identitiesDeleted' | 'conversionsUnlinked'>
>;

/**
 * Whether `text` could be a visitor id the service holds: the browser routes accept 1 to 128
 * characters (conversion-input.ts), and nothing no database can store. Anything else holds nothing.
 */
export const couldBeVisitorId = (text: string) =>
  text.length > 0 &&
  text.length <= 2 * conversionLimits.browserIdLength &&
  characterCount(text) <= conversionLimits.browserIdLength &&
  isStorableText(text);

/** How many of each kind `GET /v1/visitors/{visitorId}` lists at most, beside the total counts. */
export const visitorAccessLimit = 100;
