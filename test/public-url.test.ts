import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startGenerationApp, type GenerationApp } from './support/generation-app.ts';

describe('a publicUrl ending in "/" in the config file', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-public-url-'));
  let g: GenerationApp;
  let key: string;

  before(async () => {
    const file = path.join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ publicUrl: 'http://localhost:4999/' }));
    g = await startGenerationApp({ env: { VISUALIZER_CONFIG: file } });
    key = (await g.app.tenants.createOrganization({ name: 'Acme', credits: 100 })).apiKey.key;
  });
  after(async () => {
    await g.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("still takes an image on this service's own CDN as a product image", async () => {
    const first = await g.api.settled(key, (await (await g.api.post(key, g.validBody())).json()).id);
    const own: string = first.imageVariants.detail.url;
    assert.ok(own.startsWith('http://localhost:4999/cdn/gen/'), own);
    const response = await g.api.post(
      key,
      g.validBody({ products: [{ productId: 'x', productTitle: 'Shirt', imageUrl: own }] }),
    );
    const body = await response.json();
    assert.equal(response.status, 202, JSON.stringify(body.error));
    const done = await g.api.settled(key, body.id);
    assert.equal(done.status, 'complete', JSON.stringify(done.error));
  });
});
