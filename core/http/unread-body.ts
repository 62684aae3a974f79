import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * How much more of a body its answer did not wait for is read and dropped, and for how long; and how
 * long the connection of a body not worth reading is held, unread, before it closes.
 */
export const unreadBodyLimits = { bytes: 64 * 1024 * 1024, ms: 10_000, holdMs: 1_000 };

/** How often a drain checks its bounds: node's parser drops the body without passing it through the request. */
const checkEveryMs = 50;

const notWorthReading = new WeakSet<object>();

/** The rest of this request's body is not read after its answer (a body no client of ours would send). */
export function leaveBodyUnread(req: object) {
  notWorthReading.add(req);
}

/**
 * Lets a client that writes its whole body before reading (python's http.client, most scripts) read
 * an answer sent before that body arrived: a 413, or a 401 or 415 ahead of the upload. Closing a
 * socket with bytes still coming resets the connection and the client loses the answer, so the rest
 * of the body is read and dropped first, up to `limits` (RFC 9112 §9.6). A keep-alive answer keeps
 * its connection once the body is in; a `Connection: close` answer is closed in stages: the answer
 * and a FIN go out at once, the socket closes when the body is in. Past the limits it closes at once.
 * A body left unread (leaveBodyUnread) is not read on: its connection closes after `holdMs`, time
 * for a client reading as it writes (browsers) to take the answer first.
 */
export function drainUnreadBody(req: IncomingMessage, res: ServerResponse, limits = unreadBodyLimits) {
  // Most requests (every GET) have no body: nothing to wait for, nothing added to them.
  const length = req.headers['content-length'];
  if ((length === undefined || length === '0') && req.headers['transfer-encoding'] === undefined) return;
  const socket = req.socket;
  let closing = false;
  // Node closes the socket of a `Connection: close` answer with destroySoon() once it is written;
  // while this request's body is still arriving, only the sending side is closed here.
  socket.destroySoon = function (this: Socket) {
    if (req.complete) return Object.getPrototypeOf(this).destroySoon.call(this);
    closing = true;
    this.end();
  };
  // Runs after node's own 'finish' listener, which calls destroySoon() and drops an unread body.
  res.once('finish', () => {
    if (req.complete || socket.destroyed) return;
    if (notWorthReading.has(req)) {
      // The request stays paused, so node reads no more of the socket.
      const hold = setTimeout(() => socket.destroy(), limits.holdMs);
      socket.once('close', () => clearTimeout(hold));
      return;
    }
    const maxBytesRead = socket.bytesRead + limits.bytes;
    const deadline = Date.now() + limits.ms;
    const check = setInterval(() => {
      if (socket.bytesRead > maxBytesRead || Date.now() > deadline) socket.destroy();
    }, checkEveryMs);
    const done = () => {
      clearInterval(check);
      req.off('end', done);
      socket.off('close', done);
      if (closing && !socket.destroyed) socket.destroySoon();
    };
    req.once('end', done);
    socket.once('close', done);
    // A handler that stopped reading midway (a body over its limit) left it paused.
    req.resume();
  });
}
