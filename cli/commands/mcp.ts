/**
 * `visualizer mcp`: the service's MCP tools over stdio, for an assistant that starts local
 * servers (Claude Desktop, editors). A proxy on the SDK (@modelcontextprotocol/sdk 1.32.2:
 * server/stdio.js, client/streamableHttp.js, client/index.d.ts): each message is forwarded to the
 * service's own `/mcp` with the SDK's client, so the tools have one implementation, on the server.
 * stdout carries the protocol, so everything else goes to stderr.
 */
import { keyPrefixes } from '../../core/domain/api-keys.ts';
import { UsageError, type Command } from '../command.ts';
import { defaultBaseUrl, httpUrl } from '../service-address.ts';

export const mcp: Command = {
  name: 'mcp',
  usage: 'mcp [--base-url URL]',
  summary:
    "Serve Visualizer's MCP tools (create_generation, get_generation, list_generations, get_credit_balance) over stdio for a local AI assistant, forwarding each call to the service's /mcp. The secret API key comes from VISUALIZER_API_KEY, the service from --base-url or VISUALIZER_URL (default http://localhost:$PORT, else :3000). See docs/mcp.md.",
  options: { 'base-url': { type: 'string' } },
  async run(values, { env, output }) {
    const apiKey = (env.VISUALIZER_API_KEY ?? '').trim();
    if (!apiKey) throw new UsageError('Set VISUALIZER_API_KEY to a secret API key (visualizer_…).');
    if (apiKey.startsWith(keyPrefixes.conversion))
      throw new UsageError(
        `VISUALIZER_API_KEY holds a conversion key (${keyPrefixes.conversion}…); the tools need a secret API key (${keyPrefixes.secret}…).`,
      );
    const base = httpUrl(
      ((values['base-url'] as string | undefined) ?? env.VISUALIZER_URL ?? defaultBaseUrl(env)).trim(),
      '--base-url',
    );

    // The SDK is loaded only by this command, not by every other one (`serve` among them).
    const { serveMcpProxy } = await import('../mcp-proxy.ts');
    return serveMcpProxy(base, apiKey, env, output);
  },
};
