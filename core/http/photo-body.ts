import { randomUUID } from 'node:crypto';
import type { H3Event } from 'h3';
import { ApiError } from '../domain/errors.ts';
import { bodyChunks, parseJson, requireJsonContentType } from './body.ts';
import { leaveBodyUnread } from './unread-body.ts';

/** Where a photo sent inline starts: the top-level `"image": "data:…` of a generation body. */
const photoStart = /"image"[ \t\n\r]*:[ \t\n\r]*"data:/;
const quote = 0x22;

/**
 * A keyless JSON body whose one large part is the photo, `"image": "data:image/…;base64,…"`, at most
 * `limit` bytes. Copying, decoding and parsing 14 MB of JSON blocks the event loop for tens of
 * milliseconds, and one object of a million keys for seconds; so all but the photo must fit in
 * `restLimit` bytes, checked as the bytes arrive (413 at once otherwise), and is parsed alone. The
 * photo is taken from the bytes as sent (base64 needs no JSON escapes, and a photo with any fails
 * the image's validation) and put back as the `image` string.
 */
export async function readJsonWithPhoto(
  event: H3Event,
  { limit, restLimit }: { limit: number; restLimit: number },
): Promise<unknown> {
  requireJsonContentType(event);
  // No client of ours sends such a body, and reading the rest of it would only cost the server.
  const tooMuch = () => {
    if (event.runtime?.node?.req) leaveBodyUnread(event.runtime.node.req);
    return new ApiError(
      'invalid_request_error',
      'body_too_large',
      `The request body is too large: at most ${restLimit} bytes besides the photo ("image": "data:…").`,
    );
  };
  const head: Buffer[] = [];
  let headSize = 0;
  let before: Buffer | null = null; // the bytes before the photo's opening quote, once it is found
  const photo: string[] = [];
  const after: Buffer[] = [];
  let afterSize = 0;
  let photoEnded = false;
  const takeAfter = (bytes: Buffer) => {
    after.push(bytes);
    afterSize += bytes.length;
    if (before!.length + afterSize > restLimit) throw tooMuch();
  };
  const takePhoto = (bytes: Buffer) => {
    const end = bytes.indexOf(quote);
    photo.push(bytes.toString('latin1', 0, end < 0 ? bytes.length : end));
    if (end < 0) return;
    photoEnded = true;
    takeAfter(bytes.subarray(end + 1));
  };

  for await (const chunk of bodyChunks(event, limit)) {
    if (photoEnded) takeAfter(chunk);
    else if (before) takePhoto(chunk);
    else {
      head.push(chunk);
      headSize += chunk.length;
      if (headSize <= restLimit) continue;
      // Whatever comes before the photo counts against restLimit, so it is looked for there only.
      const bytes = Buffer.concat(head, headSize);
      const match = photoStart.exec(bytes.toString('latin1', 0, restLimit + '"data:'.length));
      if (!match) throw tooMuch();
      const start = match.index + match[0].length - '"data:'.length;
      before = bytes.subarray(0, start);
      takePhoto(bytes.subarray(start + 1));
    }
  }
  if (!before) return parseJson(Buffer.concat(head, headSize).toString('utf8'));
  if (!photoEnded)
    throw new ApiError(
      'invalid_request_error',
      'invalid_json',
      'The body is not valid JSON: the string of "image" does not end.',
    );
  // Unguessable, so after parsing only the photo's own place in the body holds it.
  const placeholder = randomUUID();
  const body = parseJson(
    `${before.toString('utf8')}"${placeholder}"${Buffer.concat(after, afterSize).toString('utf8')}`,
  );
  if (body && typeof body === 'object' && (body as { image?: unknown }).image === placeholder)
    (body as { image: string }).image = photo.join('');
  return body;
}
