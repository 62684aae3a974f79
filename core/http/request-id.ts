import type { H3Event } from 'h3';
import { FastResponse } from 'srvx';
import type { IdGenerator } from '../ports/ids.ts';

/** A caller's own request id is kept when it is a sane token, so logs on both sides line up. */
const acceptable = /^[\w.:-]{8,128}$/;

export function requestIdFor(incoming: string | null, ids: IdGenerator): string {
  return incoming && acceptable.test(incoming) ? incoming : ids.id('req_');
}

const isPlainJson = (value: unknown): value is object => {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === Array.prototype;
};

/**
 * A handler's answer with the `x-request-id` header, and `x-content-type-options: nosniff` so no
 * browser reads an answer as another type than its label says (a JSON body as HTML). A JSON answer
 * (most of the API) is made into a response here, its headers a plain object: setting the header
 * through `event.res.headers` makes h3 build two undici `Headers` (its own and a merge with the JSON
 * content type) on every request. Other answers (text, bytes, responses) get both through
 * h3 as before; so do headers a handler staged on `event.res.headers`, which h3 merges into either.
 */
export function withRequestId(event: H3Event, answer: unknown, requestId: string): unknown {
  if (isPlainJson(answer)) {
    return new FastResponse(JSON.stringify(answer), {
      status: event.res.status,
      headers: {
        'content-type': 'application/json;charset=UTF-8',
        'x-content-type-options': 'nosniff',
        'x-request-id': requestId,
      },
    });
  }
  event.res.headers.set('x-request-id', requestId);
  event.res.headers.set('x-content-type-options', 'nosniff');
  return answer;
}
