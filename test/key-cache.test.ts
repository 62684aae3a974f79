import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { keyCache } from '../plugins/store-kysely/key-cache.ts';
import { bearer, startTestApp, type TestApp } from './support/app.ts';
import { cli } from './support/cli.ts';

describe('API key cache', () => {
  it('serves a key it has read until the change marker moves or it is told to forget', async () => {
    let marker = 1;
    let reads = 0;
    const cache = keyCache<{ id: string }>(() => marker);
    const read = async () => ({ id: `read ${++reads}` });
    assert.deepEqual(await cache.find('h', read), { id: 'read 1' });
    assert.deepEqual(await cache.find('h', read), { id: 'read 1' }, 'remembered');
    marker = 2; // another connection committed
    assert.deepEqual(await cache.find('h', read), { id: 'read 1' }, 'the marker is read once per event-loop turn');
    await nextTurn();
    assert.deepEqual(await cache.find('h', read), { id: 'read 2' });
    cache.forget(); // this process changed a key
    assert.deepEqual(await cache.find('h', read), { id: 'read 3' });
    assert.ok(Object.isFrozen(await cache.find('h', read)), 'callers share the entry, so none may change it');
  });

  it('never remembers an unknown key, or a read that a forget overtook', async () => {
    const cache = keyCache<{ id: string }>(() => 0);
    let reads = 0;
    assert.equal(await cache.find('unknown', async () => (reads++, null)), null);
    assert.equal(await cache.find('unknown', async () => (reads++, null)), null);
    assert.equal(reads, 2);

    // A revoke forgets while the lookup's read is in flight: what that read saw may predate it.
    const stale = await cache.find('h', async () => {
      cache.forget();
      return { id: 'before the revoke' };
    });
    assert.deepEqual(stale, { id: 'before the revoke' });
    assert.deepEqual(await cache.find('h', async () => ({ id: 'after the revoke' })), { id: 'after the revoke' });
  });

  it('holds at most maxEntries keys', async () => {
    const cache = keyCache<{ id: string }>(() => 0, 2);
    let reads = 0;
    const read = async () => ({ id: String(++reads) });
    for (const hash of ['a', 'b', 'c', 'a']) await cache.find(hash, read);
    assert.equal(reads, 4, "the third key emptied the full cache, so 'a' was read again");
  });
});

describe('a key revoked by another process (SQLite)', () => {
  let app: TestApp;
  let organizationId: string;
  before(async () => {
    app = await startTestApp();
    organizationId = (await app.tenants.createOrganization({ name: 'Revoking', credits: 0 })).organization.id;
  });
  after(() => app.close());

  it('is refused at the very next request, though this process remembered it', async () => {
    const { key, record } = await app.tenants.createKey(organizationId, 'secret', 'revoked by the CLI');
    for (let i = 0; i < 3; i++)
      assert.equal((await fetch(`${app.url}/v1/generations`, { headers: bearer(key) })).status, 200);
    const revoked = await cli(['keys', 'revoke', '--org', organizationId, '--key', record.id, '--json'], {
      VISUALIZER_DATA_DIR: app.container.cradle.config.dataDir,
    });
    assert.equal(revoked.code, 0, revoked.stderr);
    const response = await fetch(`${app.url}/v1/generations`, { headers: bearer(key) });
    assert.equal(response.status, 401);
    assert.equal((await response.json()).error.code, 'api_key_revoked');
  });
});
