/**
 * One stateless MCP exchange over Streamable HTTP: the SDK's transport and our server, made for
 * one POST and closed after it. Loaded by the `/mcp` route on its first request, so a process
 * that never serves MCP does not load the SDK (about 26 MB and a third of a second).
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer } from './server.ts';
import type { ToolContext } from './tools.ts';

/** Whether `message` is a JSON-RPC message of the protocol, by the SDK's own schema. */
export const isJsonRpcMessage = (message: unknown) => JSONRPCMessageSchema.safeParse(message).success;

/** Answers one POST's already read and checked `body`. */
export async function answerMcp(
  request: Request,
  body: unknown,
  context: Omit<ToolContext, 'signal'>,
  http: { requestId: string; signal: AbortSignal },
): Promise<Response> {
  const server = createMcpServer(context, http);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody: body });
  } finally {
    await server.close();
  }
}
