import type { H3, H3Event } from 'h3';
import { ApiError } from '../../domain/errors.ts';
import { parseJson, readText, requireJsonContentType } from '../body.ts';
import { requestState, requireKey } from '../context.ts';
import {
  errorResponses,
  jsonContent,
  jsonBodyErrors,
  secretKeyErrors,
  security,
  serverErrors,
} from '../openapi/helpers.ts';
import type { PathFragment } from '../openapi/types.ts';
import type { RouteLimits } from '../rate-limit.ts';
import { createBodyLimit } from './generations.ts';

/** A JSON-RPC message as the document shows it: the protocol's own schema is the SDK's. */
const jsonRpcMessage = {
  type: 'object',
  required: ['jsonrpc'],
  properties: { jsonrpc: { const: '2.0' } },
  description: 'A JSON-RPC 2.0 message of the Model Context Protocol (see docs/mcp.md).',
};

const notStateful = {
  summary: 'Not offered: the MCP server is stateless',
  description:
    'The server keeps no sessions (each POST stands alone), so there is no stream to open and no session to end: 405, as the Streamable HTTP transport allows.',
  tags: ['MCP'],
  security: security.none,
  responses: errorResponses({ 405: ['method_not_allowed'] }),
};

export const mcpPaths: PathFragment = {
  '/mcp': {
    post: {
      operationId: 'mcp',
      summary: 'Model Context Protocol (Streamable HTTP)',
      description:
        "The tools `create_generation`, `get_generation`, `list_generations` and `get_credit_balance` for AI assistants, over MCP's Streamable HTTP transport in stateless mode with JSON answers. Authenticated and rate limited like `/v1`: a tool call takes the `create` budget (create_generation) or the `read` budget (the others); any other message takes one `read`. A tool's error comes back as a tool result with `isError: true` carrying the error envelope; the errors below answer the HTTP request itself. The body is limited like `POST /v1/generations`'s. See docs/mcp.md.",
      tags: ['MCP'],
      parameters: [
        {
          name: 'Accept',
          in: 'header',
          required: true,
          description:
            'Must list both `application/json` and `text/event-stream`, as the Streamable HTTP transport requires (the answer is JSON); otherwise 406. MCP clients send it.',
          schema: { type: 'string' },
          example: 'application/json, text/event-stream',
        },
      ],
      requestBody: {
        required: true,
        content: jsonContent(jsonRpcMessage, {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'get_generation', arguments: { id: 'agen_4hVd0kQm3rT8yWz1bC6nE2pL' } },
        }),
      },
      responses: {
        '200': { description: 'The JSON-RPC response.', content: jsonContent(jsonRpcMessage) },
        '202': { description: 'Accepted: the body held only notifications or responses.' },
        '406': {
          description:
            'The `Accept` header does not list both `application/json` and `text/event-stream`, as the transport requires: a JSON-RPC error.',
          content: jsonContent(jsonRpcMessage),
        },
        ...errorResponses(serverErrors, secretKeyErrors, jsonBodyErrors),
      },
    },
    get: { ...notStateful, operationId: 'mcpStream' },
    delete: { ...notStateful, operationId: 'mcpEndSession' },
  },
};

let exchange: Promise<typeof import('../mcp/exchange.ts')> | undefined;
/** The SDK, loaded on the first request for /mcp rather than at every start (exchange.ts says why). */
const loadExchange = () => (exchange ??= import('../mcp/exchange.ts'));

/** Whether every message is a tool call, which takes its own tool's budget rather than one `read`. */
const onlyToolCalls = (messages: readonly unknown[]) =>
  messages.every((message) => (message as { method?: unknown }).method === 'tools/call');

/**
 * Reads and checks the body before the transport sees it: the size limited as the REST create's
 * (the transport would buffer up to its own 4 MiB), and failures answered in the API's envelope.
 */
async function readMessages(event: H3Event): Promise<{ body: unknown; messages: unknown[] }> {
  requireJsonContentType(event);
  const body = parseJson(await readText(event, createBodyLimit));
  const messages = Array.isArray(body) ? body : [body];
  const { isJsonRpcMessage } = await loadExchange();
  const invalid = messages.findIndex((message) => !isJsonRpcMessage(message));
  if (messages.length === 0 || invalid >= 0)
    throw new ApiError(
      'invalid_request_error',
      'parameter_invalid',
      `The body must be a JSON-RPC 2.0 message of the Model Context Protocol${Array.isArray(body) && invalid >= 0 ? ` (item ${invalid} of the batch is not)` : ''}.`,
    );
  return { body, messages };
}

/**
 * `POST /mcp`: one stateless MCP exchange. A new server and transport per request (the SDK's
 * stateless mode), so any API process answers any request and nothing is kept between them; the
 * caller is authenticated by the same `requireKey` as `/v1` before the transport runs.
 */
export function mcpRoutes(app: H3, limits: RouteLimits) {
  app.post('/mcp', async (event) => {
    const caller = await requireKey(event, 'secret');
    const { body, messages } = await readMessages(event);
    if (!onlyToolCalls(messages)) await limits.read.take(caller.id);
    const { requestId, services } = requestState(event);
    const { answerMcp } = await loadExchange();
    return answerMcp(event.req, body, { caller, services, limits }, { requestId, signal: event.req.signal });
  });

  const refuse = () => {
    throw new ApiError(
      'invalid_request_error',
      'method_not_allowed',
      'The MCP server is stateless: POST each message to /mcp; there is no stream to GET and no session to DELETE.',
    );
  };
  app.get('/mcp', refuse);
  app.delete('/mcp', refuse);
}
