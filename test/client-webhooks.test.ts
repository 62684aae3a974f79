import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  createClient,
  verifyWebhook,
  WebhookVerificationError,
  type VisualizerClient,
  type WebhookEvent,
} from '../clients/node/src/index.ts';
import { startGenerationApp, type GenerationApp } from './support/generation-app.ts';
import { startHttpsServer, type ReceivedRequest, type TestHttpsServer } from './support/https-server.ts';
import { waitFor } from './support/wait-for.ts';

describe('@visualizer/client verifyWebhook on real deliveries', () => {
  let g: GenerationApp;
  let receiver: TestHttpsServer;
  let client: VisualizerClient;
  let secret: string;

  before(async () => {
    receiver = await startHttpsServer((_req, res) => void res.writeHead(204).end());
    g = await startGenerationApp();
    const { apiKey } = await g.app.tenants.createOrganization({ name: 'Hooked shop', credits: 10 });
    client = createClient({ apiKey: apiKey.key, baseUrl: g.app.url });
    secret = (await client.webhookEndpoints.create({ url: `${receiver.url}/hooks`, enabledEvents: ['*'] })).secret;
  });
  after(async () => {
    await g.close();
    await receiver.close();
  });

  /** Makes a generation end and returns the delivery its event made. */
  async function deliveryOf(image: string): Promise<{ generationId: string; delivery: ReceivedRequest }> {
    const products = [{ productId: 'sku-1', productTitle: 'Red shirt', imageUrl: `${g.host.url}/product.png` }];
    const created = await client.generations.create({ mode: 'virtual-try-on', image, products });
    await client.generations.wait(created.id).catch(() => {});
    const bodyOf = (request: ReceivedRequest) => JSON.parse(request.body.toString()) as { data: { id: string } };
    const find = () => receiver.requests.find((request) => bodyOf(request).data.id === created.id);
    await waitFor('the webhook delivery', () => find() !== undefined);
    return { generationId: created.id, delivery: find()! };
  }

  it('accepts a signed delivery and returns the typed event', async () => {
    const { generationId, delivery } = await deliveryOf(`${g.host.url}/photo.jpg`);
    const event: WebhookEvent = verifyWebhook(delivery.body, delivery.headers, secret);
    assert.equal(event.type, 'generation.completed');
    assert.equal(event.id, delivery.headers['webhook-id']);
    assert.equal(event.data.id, generationId);
    assert.equal(event.data.status, 'complete');
    assert.ok(event.data.imageVariants?.detail.url);

    // The same bytes as a string and as a fetch Headers object, as other frameworks hand them over.
    const headers = new Headers(
      Object.entries(delivery.headers).map(([name, value]): [string, string] => [name, String(value)]),
    );
    assert.equal(verifyWebhook(delivery.body.toString(), headers, secret).id, event.id);
  });

  it('returns generation.failed events with their error', async () => {
    const { delivery } = await deliveryOf(`${g.host.url}/missing`);
    const event = verifyWebhook(new Uint8Array(delivery.body), delivery.headers, secret);
    assert.equal(event.type, 'generation.failed');
    assert.equal(event.data.error?.code, 'image_fetch_failed');
  });

  it('refuses a tampered body, a foreign secret and a missing signature', async () => {
    const { delivery } = await deliveryOf(`${g.host.url}/photo.jpg`);
    const tampered = Buffer.from(delivery.body.toString().replace('"complete"', '"failed"'));
    assert.notDeepEqual(tampered, delivery.body);
    assert.throws(() => verifyWebhook(tampered, delivery.headers, secret), WebhookVerificationError);

    const otherSecret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    assert.throws(() => verifyWebhook(delivery.body, delivery.headers, otherSecret), WebhookVerificationError);

    const { 'webhook-signature': _, ...unsigned } = delivery.headers;
    assert.throws(() => verifyWebhook(delivery.body, unsigned, secret), WebhookVerificationError);
  });

  it('treats setup mistakes as TypeError, not as a bad delivery', async () => {
    const { delivery } = await deliveryOf(`${g.host.url}/photo.jpg`);
    assert.throws(() => verifyWebhook(JSON.parse(delivery.body.toString()), delivery.headers, secret), TypeError);
    assert.throws(() => verifyWebhook(delivery.body, delivery.headers, 'not-a-secret'), TypeError);
  });
});
