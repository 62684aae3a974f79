import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from '../domain/errors.ts';
import { httpAnswerOf } from './error-status.ts';

/**
 * A request node's HTTP parser rejects never reaches h3, and node's own answer is a bare status
 * line. This writes the spec's envelope instead, with the status node would have used, then
 * closes the connection: after a parse error the rest of the stream cannot be trusted.
 */
function errorFor(code: string | undefined): ApiError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('invalid_request_error', 'headers_too_large', 'The request headers are too large.');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new ApiError(
        'invalid_request_error',
        'body_too_large',
        'The chunk extensions of the request body are too large.',
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('invalid_request_error', 'request_timeout', 'The request was not received in time.');
    default:
      return new ApiError('invalid_request_error', 'malformed_request', 'The request is not valid HTTP/1.1.');
  }
}

/** For `server.on('clientError', …)`; `requestId` names the answer as every other response is named. */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, requestId: () => string) {
  // Node answers only while nothing has been written on the socket, so neither do we.
  if (!socket.writable || (socket as Duplex & { bytesWritten?: number }).bytesWritten) {
    socket.destroy();
    return;
  }
  const apiError = errorFor(error.code);
  const body = JSON.stringify(apiError.toEnvelope());
  const { status } = httpAnswerOf(apiError);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'content-type: application/json; charset=utf-8\r\n' +
      'x-content-type-options: nosniff\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      `x-request-id: ${requestId()}\r\n` +
      'connection: close\r\n\r\n' +
      body,
  );
}
