/**
 * The proxy behind `visualizer mcp`: the service's MCP tools over stdio, for an assistant that starts local
 * servers (Claude Desktop, editors). A proxy on the SDK (@modelcontextprotocol/sdk 1.32.2:
 * server/stdio.js, client/streamableHttp.js, client/index.d.ts): each message is forwarded to the
 * service's own `/mcp` with the SDK's client, so the tools have one implementation, on the server.
 * stdout carries the protocol, so everything else goes to stderr.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { maxWaitSeconds } from '../core/http/mcp/tool-schemas.ts';
import type { Output } from './output.ts';
import { stopSignal } from './stop-signal.ts';

/** Longer than the longest wait a tool may ask for, so the service answers before the proxy gives up. */
const callTimeoutMs = (maxWaitSeconds + 30) * 1000;

/** An error as one line: what underlies a failed request (`fetch failed` hides `ECONNREFUSED`). */
function describe(error: unknown): string {
  let cause = error;
  while (cause instanceof Error && cause.cause instanceof Error && cause.cause.message) cause = cause.cause;
  return cause instanceof Error ? cause.message : String(cause);
}

/** Serves the tools of the service at `base` on stdio until stdin closes or a stop signal; the exit code. */
export async function serveMcpProxy(
  base: URL,
  apiKey: string,
  env: NodeJS.ProcessEnv,
  output: Output,
): Promise<number> {
  const remote = new Client({ name: 'visualizer-cli', version: '1' });
  try {
    // Connecting first: a wrong address or key is reported and exits, rather than failing every call later.
    await remote.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', base), {
        requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
      }),
    );
  } catch (error) {
    output.err(`visualizer mcp: could not connect to ${new URL('/mcp', base).href}: ${describe(error)}`);
    return 1;
  }

  const server = new Server(
    { name: 'visualizer', version: '1' },
    { capabilities: { tools: {} }, instructions: remote.getInstructions() },
  );
  server.setRequestHandler(ListToolsRequestSchema, (request) => remote.listTools(request.params));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    try {
      return (await remote.callTool(request.params, undefined, {
        timeout: callTimeoutMs,
        signal: extra.signal,
      })) as CallToolResult;
    } catch (error) {
      // The service's protocol errors (an unknown tool) stay protocol errors; the service being
      // unreachable is told to the model as a tool error it can report.
      if (error instanceof McpError) throw error;
      const message = `The Visualizer service at ${base.origin} could not be reached: ${describe(error)}`;
      return { isError: true, content: [{ type: 'text', text: message }] };
    }
  });

  // The assistant ends a stdio server by closing its stdin (then signals, if it must).
  const inputClosed = new Promise<string>((resolve) => {
    process.stdin.once('end', () => resolve('stdin closed'));
    process.stdin.once('close', () => resolve('stdin closed'));
  });
  await server.connect(new StdioServerTransport());
  output.err(`visualizer mcp: serving the tools of ${base.origin} on stdio.`);
  await Promise.race([inputClosed, stopSignal(env)]);
  await server.close();
  await remote.close();
  return 0;
}
