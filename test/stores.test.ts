import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, startTestApp, type TestApp } from './support/app.ts';

describe('/v1/stores', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ config: { rateLimits: { read: { perSecond: 0.01, burst: 2 } } } });
  });
  after(() => app.close());

  it("takes from the key's read budget like every /v1 route, listing and creating alike", async () => {
    const apiKey = (await app.tenants.createOrganization({ name: 'limited', credits: 0 })).apiKey.key;
    const list = () => fetch(`${app.url}/v1/stores`, { headers: bearer(apiKey) });
    assert.equal((await list()).status, 200);
    const created = await fetch(`${app.url}/v1/stores`, {
      method: 'POST',
      headers: { ...bearer(apiKey), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'second' }),
    });
    assert.equal(created.status, 201);
    const limited = await list();
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.deepEqual((await limited.json()).error.code, 'rate_limited');
    const another = await app.tenants.createOrganization({ name: 'other', credits: 0 });
    assert.equal(
      (await fetch(`${app.url}/v1/stores`, { headers: bearer(another.apiKey.key) })).status,
      200,
      'another key has its own budget',
    );
  });
});
