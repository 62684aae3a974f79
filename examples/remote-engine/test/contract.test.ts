import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RenderError } from 'visualizer/plugin';
import { gradientPhoto, pluginContext, product, productImage, renderEngineContract } from 'visualizer/testing';
import remoteEnginePlugin, { createRemoteEngine } from '../index.ts';
import { startFakeRemote, type FakeRemote } from './fake-remote.ts';

const apiKey = 'test-key';

// The suite every render engine runs, the built-in ones included, with the vendor's failures
// injected through the fake: each must end as the error vocabulary says.
let contractRemote: FakeRemote;
renderEngineContract({
  name: 'remote-engine',
  async create() {
    contractRemote = await startFakeRemote({ apiKey });
    return createRemoteEngine({ baseUrl: contractRemote.url, apiKey });
  },
  // For the `timeout` fault: the fake never answers and the engine must give up by itself.
  createWithTimeout: (timeoutMs) => createRemoteEngine({ baseUrl: contractRemote.url, apiKey, timeoutMs }),
  dispose: () => contractRemote.close(),
  injectFault(fault) {
    contractRemote.fault = fault;
  },
});

describe('remote engine plugin', () => {
  let remote: FakeRemote;
  let photo: Buffer;
  let image: Buffer;
  before(async () => {
    remote = await startFakeRemote({ apiKey });
    [photo, image] = await Promise.all([gradientPhoto(), productImage()]);
  });
  after(() => remote.close());

  it('registers as the renderer and sends the photo, the products and its key to the API', async () => {
    assert.deepEqual(remoteEnginePlugin.provides, ['renderer']);
    const { renderer } = await remoteEnginePlugin.register(pluginContext({ baseUrl: remote.url, apiKey }));
    const result = await renderer.render({
      mode: 'virtual-try-on',
      imageSize: '1K',
      photo,
      products: [product(image, { productTitle: 'Blue coat' })],
      hint: 'open collar',
    });
    assert.equal(result.contentType, 'image/jpeg');
    const sent = remote.received.at(-1)!;
    assert.equal(sent.authorization, `Bearer ${apiKey}`);
    assert.deepEqual(
      {
        mode: sent.body.mode,
        size: sent.body.size,
        hint: sent.body.hint,
        photo: sent.body.photo.mimeType,
        products: sent.body.products.map(({ title, mimeType }) => [title, mimeType]),
      },
      {
        mode: 'virtual-try-on',
        size: '1K',
        hint: 'open collar',
        photo: 'image/jpeg',
        products: [['Blue coat', 'image/png']],
      },
    );
  });

  it("fails as renderer_unavailable, not as the shop's error, when the API refuses the key", async () => {
    const { renderer } = await remoteEnginePlugin.register(pluginContext({ baseUrl: remote.url, apiKey: 'revoked' }));
    const error = await renderer
      .render({ mode: 'room-visualizer', imageSize: '1K', photo, products: [product(image)], hint: null })
      .then(
        () => assert.fail('expected the render to fail'),
        (error: unknown) => error,
      );
    assert.ok(error instanceof RenderError);
    assert.equal(error.code, 'renderer_unavailable');
    assert.equal(error.transient, true);
  });

  it('refuses options it cannot work with', async () => {
    await assert.rejects(
      async () => remoteEnginePlugin.register(pluginContext({ apiKey })),
      /baseUrl must be an http or https URL/,
    );
    await assert.rejects(
      async () => remoteEnginePlugin.register(pluginContext({ baseUrl: remote.url, apiKey, region: 'eu' } as never)),
      /unknown settings: region/,
    );
    const saved = process.env.REMOTE_ENGINE_API_KEY;
    delete process.env.REMOTE_ENGINE_API_KEY;
    try {
      await assert.rejects(
        async () => remoteEnginePlugin.register(pluginContext({ baseUrl: remote.url })),
        /needs an API key/,
      );
    } finally {
      if (saved !== undefined) process.env.REMOTE_ENGINE_API_KEY = saved;
    }
  });
});
