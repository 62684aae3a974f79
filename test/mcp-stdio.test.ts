/**
 * `visualizer mcp`: the real CLI as a child process speaking MCP on stdio, started by the SDK's
 * own stdio client as an assistant starts it (docs/mcp.md's configuration), against a real server
 * on loopback. Its tools are the server's, forwarded to `/mcp`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { bin, cli } from './support/cli.ts';
import { startGenerationApp, type GenerationApp } from './support/generation-app.ts';
import { mcpToolNames } from './support/mcp-tools.ts';

const resultJson = (result: CallToolResult): Record<string, any> => {
  const text = result.content.find((item) => item.type === 'text' && item.text.startsWith('{'));
  assert.ok(text && text.type === 'text', `a JSON text item in ${JSON.stringify(result.content)}`);
  return JSON.parse(text.text);
};

describe('visualizer mcp (stdio)', () => {
  let g: GenerationApp;
  const clients: Client[] = [];

  /** The CLI started by the SDK's stdio client with `key` in VISUALIZER_API_KEY, as docs/mcp.md configures it. */
  async function connect(key: string) {
    const client = new Client({ name: 'test', version: '1' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, 'mcp', '--base-url', g.app.url],
      env: { PATH: process.env.PATH ?? '', VISUALIZER_API_KEY: key },
      stderr: 'pipe',
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult;

  const organization = async (credits: number) =>
    (await g.app.tenants.createOrganization({ name: `Org ${credits}`, credits })).apiKey.key;

  before(async () => {
    g = await startGenerationApp();
  });

  after(async () => {
    for (const client of clients) await client.close();
    await g?.close();
  });

  it('lists the tools and completes a try-on through them, image included', async () => {
    const client = await connect(await organization(3));
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), mcpToolNames);
    assert.ok(tools.every((tool) => tool.inputSchema.type === 'object'));

    const args = { ...g.validBody(), idempotency_key: 'stdio-1', wait_seconds: 60 };
    const result = await call(client, 'create_generation', args);
    assert.notEqual(result.isError, true, JSON.stringify(result.content));
    const generation = resultJson(result);
    assert.equal(generation.status, 'complete');
    const image = result.content.find((item) => item.type === 'image');
    assert.ok(image && image.type === 'image' && image.data.length > 0, 'the list variant inline');

    assert.equal(resultJson(await call(client, 'create_generation', args)).id, generation.id, 'replayed');
    assert.equal(resultJson(await call(client, 'get_credit_balance')).balance, 2);
  });

  it('passes the service refusals on as tool errors', async () => {
    const client = await connect(await organization(0));
    const refused = await call(client, 'create_generation', g.validBody());
    assert.equal(refused.isError, true);
    assert.equal(resultJson(refused).error.code, 'insufficient_credits');

    const other = await connect(await organization(1));
    const theirs = resultJson(await call(other, 'create_generation', g.validBody()));
    const missing = await call(client, 'get_generation', { id: theirs.id });
    assert.equal(missing.isError, true);
    assert.equal(resultJson(missing).error.code, 'resource_missing');
  });

  it('exits 1 naming the problem when the key is refused, and 2 without a key', async () => {
    const refused = await cli(['mcp', '--base-url', g.app.url], {
      VISUALIZER_API_KEY: 'visualizer_0123456789abcdefghijklmnopqrstuv',
    });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /invalid_api_key/);
    assert.equal(refused.stdout, '', 'nothing but the protocol on stdout');

    const missing = await cli(['mcp', '--base-url', g.app.url], { VISUALIZER_API_KEY: '' });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /VISUALIZER_API_KEY/);
  });
});
