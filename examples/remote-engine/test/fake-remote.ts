import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RenderFault } from 'visualizer/testing';

/** One request the fake received, for tests to check what the engine sent. */
export interface ReceivedRender {
  authorization: string | undefined;
  body: {
    mode: string;
    size: string;
    hint: string | null;
    photo: { mimeType: string };
    products: Array<{ title: string; mimeType: string }>;
  };
}

export interface FakeRemote {
  /** Base URL on loopback, e.g. http://127.0.0.1:41234. */
  url: string;
  /** Every render request, oldest first. */
  received: ReceivedRender[];
  /** From now on every request is answered with `fault` (null: normally). */
  fault: RenderFault | null;
  close(): Promise<void>;
}

const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

/**
 * A stand-in for the remote render API on 127.0.0.1, answering as its documentation says: a
 * render returns the photo it was sent as the "rendered" image (the engine scales it to the size
 * paid for), and each fault of the contract suite is answered the way the vendor would.
 */
export async function startFakeRemote({ apiKey }: { apiKey: string }): Promise<FakeRemote> {
  const fake: FakeRemote = { url: '', received: [], fault: null, close: async () => {} };

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (request.method !== 'POST' || request.url !== '/v1/renders')
      return json(response, 404, { error: { code: 'not_found', message: 'No such route.' } });
    if (request.headers.authorization !== `Bearer ${apiKey}`)
      return json(response, 401, { error: { code: 'unauthorized', message: 'Unknown API key.' } });
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ReceivedRender['body'] & {
      photo: { data: string; mimeType: string };
    };
    fake.received.push({ authorization: request.headers.authorization, body });
    switch (fake.fault) {
      case 'rate_limited':
        return json(response, 429, { error: { code: 'rate_limited', message: 'Slow down.' } }, { 'retry-after': '7' });
      case 'unavailable':
        return json(response, 503, { error: { code: 'overloaded', message: 'Try again later.' } });
      case 'timeout':
        return; // No answer: the engine's own timeout must end the wait.
      case 'moderation':
        return json(response, 422, {
          error: { code: 'moderation', message: 'The photo shows content this API does not render.' },
        });
      case 'malformed':
        return response.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Bad gateway</body></html>');
      case null:
        return json(response, 200, { image: { data: body.photo.data, mimeType: body.photo.mimeType } });
    }
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: Error) =>
      json(response, 500, { error: { code: 'internal', message: error.message } }),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = async () => {
    // Requests left hanging by the `timeout` fault would keep the server open.
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  };
  return fake;
}
