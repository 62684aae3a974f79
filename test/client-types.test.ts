import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { createClient } from '../clients/node/src/index.ts';
import { documentPath, generateClientTypes, schemaPath } from '../scripts/generate-client-types.ts';

/**
 * The client's method for each operation a shop's server calls with a key. The widget's keyless
 * routes, health checks, images, SDK files and the document itself are for browsers and operators.
 */
const methods: Record<string, string> = {
  createGeneration: 'generations.create',
  getGeneration: 'generations.retrieve',
  listGenerations: 'generations.list',
  getCreditBalance: 'credits.retrieve',
  listCreditLedgerEntries: 'credits.listLedger',
  createWebhookEndpoint: 'webhookEndpoints.create',
  listWebhookEndpoints: 'webhookEndpoints.list',
  getWebhookEndpoint: 'webhookEndpoints.retrieve',
  updateWebhookEndpoint: 'webhookEndpoints.update',
  deleteWebhookEndpoint: 'webhookEndpoints.delete',
  rotateWebhookEndpointSecret: 'webhookEndpoints.rotateSecret',
  listEvents: 'events.list',
  getEvent: 'events.retrieve',
  listEventAttempts: 'events.listAttempts',
  resendEvent: 'events.resend',
  streamEvents: 'events.stream',
  reportOrder: 'conversions.report',
  listConversions: 'conversions.list',
  getAnalyticsSummary: 'analytics.summary',
  getAnalyticsDaily: 'analytics.daily',
  listStores: 'stores.list',
  createStore: 'stores.create',
  createWidget: 'widgets.create',
  listWidgets: 'widgets.list',
  getWidget: 'widgets.retrieve',
  updateWidget: 'widgets.update',
  getVisitor: 'visitors.retrieve',
  listVisitorGenerations: 'visitors.listGenerations',
  listVisitorIdentities: 'visitors.listIdentities',
  listVisitorConversions: 'visitors.listConversions',
  eraseVisitor: 'visitors.erase',
  listVisitorErasures: 'visitorErasures.list',
  getVisitorErasure: 'visitorErasures.retrieve',
  deleteGeneration: 'generations.delete',
  getOrganization: 'organization.retrieve',
  updateOrganization: 'organization.update',
};

describe('@visualizer/client types', () => {
  it('are what openapi-typescript makes from docs/openapi.json (run `npm run client:types`)', async () => {
    assert.equal(
      readFileSync(schemaPath, 'utf8'),
      await generateClientTypes(),
      `${schemaPath} is stale: run npm run client:types`,
    );
  });

  it('has a method for every keyed operation of the document', () => {
    const document = JSON.parse(readFileSync(documentPath, 'utf8')) as {
      security: object[];
      paths: Record<string, Record<string, { operationId?: string; security?: object[]; tags?: string[] }>>;
    };
    const client = createClient({ apiKey: 'visualizer_x', baseUrl: 'http://127.0.0.1:9' }) as unknown as Record<
      string,
      Record<string, unknown>
    >;
    const keyed = Object.values(document.paths)
      .flatMap((item) => Object.values(item))
      // Session-only operations (the dashboard's: keys, users, sessions) refuse keys, so a key's client has none of them.
      .filter(
        (operation) =>
          operation.operationId &&
          // MCP is a protocol of its own, spoken by MCP clients (docs/mcp.md), not a REST operation to wrap.
          !operation.tags?.includes('MCP') &&
          (operation.security ?? document.security).some((requirement) => !('sessionCookie' in requirement)),
      )
      .map((operation) => operation.operationId!);
    assert.deepEqual(
      keyed.filter((id) => !(id in methods)),
      [],
      'operations without a client method: add them to createClient and here',
    );
    for (const id of keyed) {
      const [group, name] = methods[id]!.split('.') as [string, string];
      assert.equal(typeof client[group]?.[name], 'function', `${methods[id]} for ${id}`);
    }
  });
});
