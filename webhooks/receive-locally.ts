/**
 * A webhook receiver for your own machine: a plain HTTP server on loopback that verifies every
 * delivery with `verify.ts` and prints what it received. `visualizer listen --forward-to
 * http://localhost:4000/webhooks` feeds it the service's events, signed with the secret listen
 * prints (the README's quickstart and docs/webhooks.md show the steps).
 *
 *   VISUALIZER_WEBHOOK_SECRET=whsec_… node --import tsx webhooks/receive-locally.ts [port]
 *
 * The port defaults to 4000. Each verified event prints one line starting with `verified`; a
 * delivery that fails verification is answered 400 and printed as `rejected` with the reason.
 * Stop it with Ctrl-C.
 */
import { createServer } from 'node:http';
import { verifyWebhook, WebhookVerificationError } from './verify.ts';

const [portArgument = '4000'] = process.argv.slice(2);
const port = Number(portArgument);
const secret = process.env.VISUALIZER_WEBHOOK_SECRET;
if (!Number.isInteger(port) || port < 0 || port > 65535 || !secret) {
  console.error('usage: VISUALIZER_WEBHOOK_SECRET=whsec_… node --import tsx webhooks/receive-locally.ts [port]');
  process.exit(2);
}

interface Event {
  id: string;
  type: string;
  data: {
    id: string;
    status: string;
    imageVariants?: { detail?: { url: string } } | null;
    error?: { code: string } | null;
  };
}

// Deliveries are at-least-once: a real receiver keeps the ids it has handled in its database.
const seen = new Set<string>();

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    let event: Event;
    try {
      // The raw bytes, before anything parses them: the signature covers them exactly.
      event = verifyWebhook(secret, request.headers, Buffer.concat(chunks)) as Event;
    } catch (error) {
      const known = error instanceof WebhookVerificationError;
      console.log(`rejected ${request.method} ${request.url}: ${(error as Error).message}`);
      response.writeHead(known ? 400 : 500).end();
      return;
    }
    const repeat = seen.has(event.id) ? ' (repeat)' : '';
    seen.add(event.id);
    const outcome = event.data.imageVariants?.detail?.url ?? event.data.error?.code ?? '';
    console.log(
      `verified ${event.type} ${event.id} ${event.data.id} ${event.data.status} ${outcome}${repeat}`.trimEnd(),
    );
    response.writeHead(204).end();
  });
});

server.listen(port, '127.0.0.1', () => {
  const address = server.address();
  console.log(
    `receiving webhooks on http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}/`,
  );
});
