/**
 * The MCP server at `/mcp` (docs/mcp.md), driven by the SDK's own client over real HTTP on
 * loopback: what an assistant configured from the docs sees, from listing the tools to a finished
 * try-on, and the API's refusals as tool errors.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { bearer } from './support/app.ts';
import { startGenerationApp, type GenerationApp } from './support/generation-app.ts';
import { mcpToolNames } from './support/mcp-tools.ts';

/** The text items of a tool result, and the one that is JSON parsed. */
function resultJson(result: CallToolResult): Record<string, any> {
  const texts = result.content.filter((item) => item.type === 'text').map((item) => item.text);
  const json = texts.find((text) => text.startsWith('{'));
  assert.ok(json, `a JSON text item among ${JSON.stringify(texts)}`);
  return JSON.parse(json);
}

describe('MCP over Streamable HTTP', () => {
  let g: GenerationApp;
  const clients: Client[] = [];

  /** An SDK client connected to /mcp with `key` as its bearer token. */
  async function connect(key: string) {
    const client = new Client({ name: 'test', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${g.app.url}/mcp`), {
      requestInit: { headers: bearer(key) },
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
    g = await startGenerationApp({
      config: {
        // A small create budget per key, so one test can run it out; reads stay plentiful.
        rateLimits: { create: { perSecond: 0.001, burst: 4 }, read: { perSecond: 10_000, burst: 10_000 } },
      },
    });
  });

  after(async () => {
    for (const client of clients) await client.close();
    await g?.close();
  });

  it('lists the four tools with their input schemas', async () => {
    const client = await connect(await organization(5));
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), mcpToolNames);
    const create = tools.find((tool) => tool.name === 'create_generation')!;
    assert.equal(create.inputSchema.type, 'object');
    for (const field of ['mode', 'image', 'products', 'imageSize', 'idempotency_key', 'wait_seconds'])
      assert.ok(create.inputSchema.properties?.[field], `create_generation takes ${field}`);
    assert.deepEqual([...(create.inputSchema.required ?? [])].sort(), ['image', 'mode', 'products']);
    const list = tools.find((tool) => tool.name === 'list_generations')!;
    for (const field of ['limit', 'starting_after', 'status', 'mode'])
      assert.ok(list.inputSchema.properties?.[field], `list_generations takes ${field}`);
    for (const tool of tools) assert.ok((tool.description ?? '').length > 40, `${tool.name} is described`);
  });

  it('creates a try-on, waits for it and returns the list variant inline; the key replays it', async () => {
    const key = await organization(5);
    const client = await connect(key);
    const args = { ...g.validBody(), idempotency_key: 'mcp-try-on-1', wait_seconds: 60 };
    const result = await call(client, 'create_generation', args);
    assert.notEqual(result.isError, true, JSON.stringify(result.content));
    const generation = resultJson(result);
    assert.equal(generation.status, 'complete');
    assert.match(generation.id, /^agen_/);
    const summary = result.content.find((item) => item.type === 'text')!;
    assert.ok(summary.type === 'text' && summary.text.includes(generation.imageVariants.detail.url));
    const image = result.content.find((item) => item.type === 'image');
    assert.ok(image && image.type === 'image', 'an image item');
    assert.equal(image.mimeType, 'image/jpeg');
    const bytes = Buffer.from(image.data, 'base64');
    const listed = Buffer.from(await (await fetch(generation.imageVariants.list.url)).arrayBuffer());
    assert.ok(bytes.equals(listed), 'the image is the list variant');

    const replay = await call(client, 'create_generation', { ...args, wait_seconds: 0 });
    assert.equal(resultJson(replay).id, generation.id);
    const balance = resultJson(await call(client, 'get_credit_balance'));
    assert.deepEqual(balance, { object: 'credit_balance', balance: 4 }, 'charged once');

    const got = resultJson(await call(client, 'get_generation', { id: generation.id }));
    assert.equal(got.id, generation.id);
    const page = resultJson(await call(client, 'list_generations', { limit: 5, status: 'complete' }));
    assert.deepEqual(
      page.data.map((item: { id: string }) => item.id),
      [generation.id],
    );
    assert.equal(page.has_more, false);
  });

  it('answers without waiting when wait_seconds is not given', async () => {
    const client = await connect(await organization(5));
    const generation = resultJson(await call(client, 'create_generation', g.validBody()));
    assert.match(generation.id, /^agen_/);
    assert.ok(['processing', 'complete'].includes(generation.status));
  });

  it('refuses invalid arguments as a tool error naming the field', async () => {
    const client = await connect(await organization(5));
    const result = await call(client, 'create_generation', { ...g.validBody(), mode: 'painting' });
    assert.equal(result.isError, true);
    const body = resultJson(result);
    assert.equal(body.status, 400);
    assert.equal(body.error.code, 'parameter_invalid');
    assert.equal(body.error.param, 'mode');
  });

  it('reports insufficient credits and then the rate limit as tool errors', async () => {
    const client = await connect(await organization(0));
    const refused = await call(client, 'create_generation', g.validBody());
    assert.equal(refused.isError, true);
    assert.deepEqual((({ status, error: { type, code } }) => ({ status, type, code }))(resultJson(refused) as any), {
      status: 403,
      type: 'authorization_error',
      code: 'insufficient_credits',
    });
    // The create budget of this key is 4 with next to no refill: the 5th call is over it.
    let last = refused;
    for (let attempt = 0; attempt < 4; attempt++) last = await call(client, 'create_generation', g.validBody());
    assert.equal(last.isError, true);
    const limited = resultJson(last);
    assert.equal(limited.status, 429);
    assert.equal(limited.error.type, 'rate_limit_error');
    assert.equal(limited.error.code, 'rate_limited');
    assert.ok(limited.retryAfterSeconds >= 1);
    // Reads have their own budget.
    assert.notEqual((await call(client, 'get_credit_balance')).isError, true);
  });

  it("answers another organization's generation as not found", async () => {
    const mine = await connect(await organization(5));
    const theirs = await connect(await organization(5));
    const generation = resultJson(await call(theirs, 'create_generation', g.validBody()));
    const result = await call(mine, 'get_generation', { id: generation.id });
    assert.equal(result.isError, true);
    const body = resultJson(result);
    assert.equal(body.status, 404);
    assert.equal(body.error.code, 'resource_missing');
    const page = resultJson(await call(mine, 'list_generations'));
    assert.deepEqual(page.data, []);
  });

  it('refuses a missing or invalid key before any MCP exchange', async () => {
    for (const [headers, code] of [
      [{}, 'missing_api_key'],
      [bearer('visualizer_0123456789abcdefghijklmnopqrstuv'), 'invalid_api_key'],
    ] as const) {
      const client = new Client({ name: 'test', version: '1' });
      const transport = new StreamableHTTPClientTransport(new URL(`${g.app.url}/mcp`), { requestInit: { headers } });
      await assert.rejects(client.connect(transport), (error: Error & { code?: number }) => {
        assert.equal(error.code, 401);
        assert.match(error.message, new RegExp(code));
        return true;
      });
      await client.close();
    }
    const answer = await fetch(`${g.app.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(answer.status, 401);
    assert.equal((await answer.json()).error.code, 'missing_api_key');
  });

  it('answers GET and DELETE with 405 (stateless), and refuses a body that is not JSON-RPC', async () => {
    for (const method of ['GET', 'DELETE']) {
      const answer = await fetch(`${g.app.url}/mcp`, { method });
      assert.equal(answer.status, 405);
      assert.equal((await answer.json()).error.code, 'method_not_allowed');
    }
    const key = await organization(1);
    const answer = await fetch(`${g.app.url}/mcp`, {
      method: 'POST',
      headers: { ...bearer(key), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ hello: 'world' }),
    });
    assert.equal(answer.status, 400);
    assert.equal((await answer.json()).error.code, 'parameter_invalid');
  });

  it('refuses a body over the create limit with 413 before the MCP transport reads it', async () => {
    const key = await organization(1);
    const image = `data:image/jpeg;base64,${'A'.repeat(15 * 1024 * 1024)}`;
    const answer = await fetch(`${g.app.url}/mcp`, {
      method: 'POST',
      headers: { ...bearer(key), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'create_generation', arguments: { ...g.validBody(), image } },
      }),
    });
    assert.equal(answer.status, 413);
    assert.equal((await answer.json()).error.code, 'body_too_large');
  });
});
