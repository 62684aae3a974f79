/**
 * The MCP server of Visualizer's tools, on the official SDK (@modelcontextprotocol/sdk 1.32.2).
 * Read for it: the SDK's dist/esm/server/index.d.ts (the low-level `Server`, `setRequestHandler`),
 * server/webStandardStreamableHttp.{d.ts,js} (stateless mode, `parsedBody`, JSON responses),
 * types.d.ts (`ListToolsRequestSchema`, `CallToolRequestSchema`, `CallToolResult`, `McpError`),
 * and client/{index,streamableHttp,stdio}.d.ts for the CLI's proxy and the tests.
 *
 * The low-level `Server` rather than `McpServer.registerTool`, which takes zod schemas: the tools'
 * schemas are the REST routes' valibot schemas (tool-schemas.ts), listed as JSON Schema and
 * validated with valibot as the routes validate.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { errorResponse } from '../errors.ts';
import { isToolName, runTool, toolList, type ToolContext } from './tools.ts';
import { maxWaitSeconds } from './tool-schemas.ts';

const instructions = `Visualizer makes AI product visualizations for a shop: virtual try-on (a person wearing products) and room staging (products in a room). create_generation starts one and charges credits; pass wait_seconds (up to ${maxWaitSeconds}) to receive the finished image, or poll get_generation. Errors come back as tool results whose text is the API's error envelope ({"status", "error": {"type", "code", "message", "param"}}).`;

/**
 * A thrown error as a tool result: the API's envelope and HTTP status, through the same mapping
 * as the REST routes (errorResponse), so an unknown error is logged under the request id and
 * leaks nothing. A model can read and act on a tool error; a protocol error it never sees.
 */
async function toolError(thrown: unknown, context: ToolContext, requestId: string): Promise<CallToolResult> {
  const { logger, persistence } = context.services;
  const answer = errorResponse(thrown, requestId, logger, (error) => persistence.isUnavailable(error));
  const envelope = (await answer.json()) as { error: Record<string, unknown> };
  const retryAfter = answer.headers.get('retry-after');
  const body = { status: answer.status, ...envelope, ...(retryAfter ? { retryAfterSeconds: Number(retryAfter) } : {}) };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

/**
 * One server for one caller, made per HTTP request (stateless mode). The caller is fixed when it
 * is made, so no tool can act for another organization.
 */
export function createMcpServer(
  context: Omit<ToolContext, 'signal'>,
  http: { requestId: string; signal: AbortSignal },
): Server {
  const server = new Server({ name: 'visualizer', version: '1' }, { capabilities: { tools: {} }, instructions });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolList }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    if (!isToolName(name)) throw new McpError(ErrorCode.InvalidParams, `No tool named '${name}'.`);
    // A wait ends when the client cancels or when its HTTP request goes away (nobody would read the answer).
    const tool = { ...context, signal: AbortSignal.any([extra.signal, http.signal]) };
    try {
      return await runTool(tool, name, args);
    } catch (error) {
      return toolError(error, tool, http.requestId);
    }
  });
  return server;
}
