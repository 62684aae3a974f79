import type { IdGenerator } from '../ports/ids.ts';

/** A caller's own request id is kept when it is a sane token, so logs on both sides line up. */
const acceptable = /^[\w.:-]{8,128}$/;

export function requestIdFor(incoming: string | null, ids: IdGenerator): string {
  return incoming && acceptable.test(incoming) ? incoming : ids.id('req_');
}
