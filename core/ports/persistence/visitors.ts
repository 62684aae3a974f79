import type { ConversionRecord } from '../../domain/conversion.ts';
import type { GenerationRecord } from '../../domain/generation.ts';
import type { ErasureProgress, VisitorErasure } from '../../domain/visitor-erasure.ts';
import type { VisitorIdentity } from '../../domain/visitor-identity.ts';

/** A page of a visitor's items, newest first, and whether more follow. */
export interface VisitorPage<T> {
  data: T[];
  hasMore: boolean;
}

/**
 * At most `limit` items, after `startingAfter`: the previous page's last item (a generation's or a
 * conversion's id, an identity's store id). One that is not the visitor's gives an empty page.
 */
export interface VisitorPageOptions {
  limit: number;
  startingAfter?: string;
}

/** How many of each kind the organization holds about a visitor. */
export interface VisitorCounts {
  generations: number;
  identities: number;
  conversions: number;
}

/**
 * What the organization holds about one widget visitor (a `visitorId`), across its stores, and
 * the steps that erase it. A visitor's generations and identities are those carrying its visitor
 * id; its conversions are those carrying its visitor id or one of the visitor's session ids: those
 * its generations, identities and conversions with its visitor id carry. Every read and step is
 * confined to the organization, and is served by indexes (by store and visitor or session)
 * whatever the number of rows.
 */
export interface VisitorDataRepository {
  /** Newest first (then by id), a page at a time. */
  generations(
    organizationId: string,
    visitorId: string,
    page: VisitorPageOptions,
  ): Promise<VisitorPage<GenerationRecord>>;
  /** Most recently identified first (then by store id), a page at a time; one per store at most. */
  identities(
    organizationId: string,
    visitorId: string,
    page: VisitorPageOptions,
  ): Promise<VisitorPage<VisitorIdentity>>;
  /** Newest order first (then by id), a page at a time. */
  conversions(
    organizationId: string,
    visitorId: string,
    page: VisitorPageOptions,
  ): Promise<VisitorPage<ConversionRecord>>;
  /** How many of each kind there are in all. */
  counts(organizationId: string, visitorId: string): Promise<VisitorCounts>;

  /*
   * The erasure's steps. Each takes a bounded batch and is meant to be its own transaction, with
   * the erasure's progress; repeating one after a crash finds only what the last commit left.
   */

  /**
   * Takes up to `limit` of the visitor's generations from it: their visitor and session ids are
   * removed, and they are resolved to with the session id each had, so that the caller records
   * the session ids and deletes the generations in the same transaction. A generation another
   * transaction took at the same moment is left to it (not resolved to).
   */
  detachGenerations(
    organizationId: string,
    visitorId: string,
    limit: number,
  ): Promise<Array<{ id: string; sessionId: string | null }>>;
  /** Deletes up to `limit` of the visitor's identity records; resolves to what was deleted, with each one's session id. */
  deleteIdentities(
    organizationId: string,
    visitorId: string,
    limit: number,
  ): Promise<Array<{ storeId: string; sessionId: string | null }>>;
  /**
   * Removes the visitor id and the session id (`updatedAt` set to `at`) from up to `limit`
   * conversions with the visitor's id; resolves to them, each with the session id it had, so that
   * the caller records the session ids in the same transaction (orders reported without the visitor
   * id may share them). The conversions stay, with their totals, items and attribution.
   */
  unlinkConversionsOfVisitor(
    organizationId: string,
    visitorId: string,
    limit: number,
    at: number,
  ): Promise<Array<{ id: string; sessionId: string | null }>>;
  /** Removes both ids from up to `limit` conversions whose session id is one of `sessionIds`; resolves to how many. */
  unlinkConversionsOfSessions(organizationId: string, sessionIds: string[], limit: number, at: number): Promise<number>;
}

/**
 * Erasures of visitors: the audit record (`VisitorErasure`, holding nothing about the visitor) and,
 * while one is pending, its work: the visitor id and the session ids collected from what was
 * deleted, which `complete` deletes.
 */
export interface VisitorErasureRepository {
  /**
   * Records `erasure` (pending) with the visitor id it erases, unless an erasure of the same
   * visitor in the organization is pending: then records nothing and resolves to that one. Two
   * requests racing for one visitor end as one erasure.
   */
  request(erasure: VisitorErasure, visitorId: string): Promise<{ erasure: VisitorErasure; created: boolean }>;
  get(organizationId: string, id: string): Promise<VisitorErasure | null>;
  /** Newest request first; `startingAfter` is the id of the previous page's last erasure. */
  list(
    organizationId: string,
    options: { limit: number; startingAfter?: string },
  ): Promise<{ data: VisitorErasure[]; hasMore: boolean }>;
  /** The organization's pending erasure of the visitor, or null. */
  pendingFor(organizationId: string, visitorId: string): Promise<VisitorErasure | null>;
  /**
   * What a pending erasure works on (its job reads it); null when it is complete or unknown. Inside
   * a transaction `forUpdate` holds `complete` back (where the database can) until that transaction
   * ends, so a batch that found the erasure pending commits before it completes.
   */
  subject(id: string, options?: { forUpdate?: boolean }): Promise<{ organizationId: string; visitorId: string } | null>;
  /** Adds to the pending erasure's session ids (each kept once). */
  addSessions(id: string, sessionIds: string[]): Promise<void>;
  /** Up to `limit` of the session ids collected and not yet removed. */
  sessions(id: string, limit: number): Promise<string[]>;
  removeSessions(id: string, sessionIds: string[]): Promise<void>;
  /** Adds to the erasure's counts. */
  progress(id: string, counts: ErasureProgress): Promise<void>;
  /**
   * Marks a pending erasure complete at `at` and deletes its visitor id and session ids (the session
   * ids last, so none a batch committed meanwhile is left), so what stays names nobody; false (and
   * no change) when it was not pending.
   */
  complete(id: string, at: number): Promise<boolean>;
}
