import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, Migrator } from '../plugins/store-kysely/kysely.ts';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { activeSecrets, maxPreviousSecrets, rotateSecrets } from '../core/domain/webhook-secrets.ts';
import { startWorkers } from '../core/lifecycle.ts';
import type { Persistence } from '../core/ports/persistence/index.ts';
import { migrationProvider } from '../plugins/store-kysely/migrations/index.ts';
import { openPostgres } from '../plugins/store-kysely/postgres.ts';
import { ImmediateSqliteDialect, openSqlite } from '../plugins/store-kysely/sqlite.ts';
import { databaseMatrix, errorOf } from './support/databases.ts';
import { startGenerationApp, type GenerationApp } from './support/generation-app.ts';
import { startHttpsServer, type ReceivedRequest, type TestHttpsServer } from './support/https-server.ts';
import { waitFor } from './support/wait-for.ts';

/**
 * Short enough that a service clock moved past each expiry stays within the 5 minutes
 * `standardwebhooks` allows between a delivery's timestamp and real time.
 */
const graceMs = 60_000;

describe('secret rotation rules', () => {
  const t0 = 1_000_000;

  it('keeps each replaced secret signing until its own expiry, newest first', () => {
    const once = rotateSecrets({ secret: 'a', previousSecrets: [] }, 'b', t0, graceMs);
    const twice = rotateSecrets(once, 'c', t0 + 20_000, graceMs);
    assert.deepEqual(twice, {
      secret: 'c',
      previousSecrets: [
        { secret: 'b', expiresAt: t0 + 80_000 },
        { secret: 'a', expiresAt: t0 + 60_000 },
      ],
    });
    assert.deepEqual(activeSecrets(twice, t0 + 60_000 - 1), ['c', 'b', 'a']);
    assert.deepEqual(activeSecrets(twice, t0 + 60_000), ['c', 'b'], 'a stops at its own expiry');
    assert.deepEqual(activeSecrets(twice, t0 + 80_000), ['c'], 'and b at its own');
    assert.deepEqual(
      rotateSecrets(twice, 'd', t0 + 70_000, graceMs).previousSecrets.map((previous) => previous.secret),
      ['c', 'b'],
      'an expired secret is forgotten',
    );
    assert.deepEqual(
      rotateSecrets({ secret: 'a', previousSecrets: [] }, 'b', t0, 0).previousSecrets,
      [],
      'no grace period, nothing kept',
    );
  });

  it(`keeps at most ${maxPreviousSecrets} previous secrets, dropping the ones that expire first`, () => {
    let secrets = { secret: 's0', previousSecrets: [] as Array<{ secret: string; expiresAt: number }> };
    for (let i = 1; i <= maxPreviousSecrets + 1; i++) secrets = rotateSecrets(secrets, `s${i}`, t0 + i, graceMs);
    assert.deepEqual(activeSecrets(secrets, t0 + 10), ['s5', 's4', 's3', 's2', 's1'], 's0, replaced first, is dropped');
    // A shorter grace period (the setting changed) makes the newest previous secret the one to go.
    const shortened = rotateSecrets(secrets, 's6', t0 + 10, 5);
    assert.deepEqual(activeSecrets(shortened, t0 + 10), ['s6', 's4', 's3', 's2', 's1']);
  });
});

const matrix = databaseMatrix();
after(() => matrix.stop());

for (const [database, environment] of matrix.databases) {
  describe(`webhook secret rotation on ${database}`, () => {
    let g: GenerationApp;
    let receiver: TestHttpsServer;
    let key: string;
    let eventId: string;
    let offsetMs = 0;
    /** Moves the service clock to `at` (epoch ms) from now on. */
    const clockAt = (at: number) => {
      offsetMs = at - Date.now();
    };

    before(async () => {
      receiver = await startHttpsServer((_req, res) => void res.writeHead(204).end());
      // The kernel's clock, so the delivery worker and the queue read it.
      const clock = { now: () => Date.now() + offsetMs };
      g = await startGenerationApp({
        env: await environment(),
        config: { webhooks: { secretGracePeriodMs: graceMs } },
        workers: false,
        ports: { clock },
      });
      await startWorkers(g.app.container.cradle);
      const created = await g.app.tenants.createOrganization({ name: 'Rotations', credits: 10 });
      key = created.apiKey.key;
      const { id } = await (await g.api.post(key, g.validBody())).json();
      await g.api.settled(key, id);
      const events = await (await api('/v1/events?limit=5')).json();
      eventId = events.data.find((event: { data: { id: string } }) => event.data.id === id).id;
    });
    after(async () => {
      await g.close();
      await receiver.close();
    });

    const api = (route: string, init: { method?: string; body?: unknown } = {}) =>
      fetch(`${g.app.url}${route}`, {
        method: init.method ?? 'GET',
        headers: {
          authorization: `Bearer ${key}`,
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });

    async function endpoint(receiverPath: string) {
      const response = await api('/v1/webhook-endpoints', {
        method: 'POST',
        body: { url: `${receiver.url}${receiverPath}`, enabledEvents: ['*'] },
      });
      assert.equal(response.status, 201);
      return (await response.json()) as { id: string; secret: string };
    }

    async function rotate(endpointId: string) {
      const response = await api(`/v1/webhook-endpoints/${endpointId}/rotate-secret`, { method: 'POST' });
      assert.equal(response.status, 200, await response.clone().text());
      const { secret, previousSecretExpiresAt } = await response.json();
      return { secret: secret as string, previousSecretExpiresAt: Date.parse(previousSecretExpiresAt) };
    }

    /** Resends the event to the endpoint now (service time) and returns what the receiver got. */
    async function deliveredNow(endpointId: string, receiverPath: string): Promise<ReceivedRequest> {
      const response = await api(`/v1/events/${eventId}/resend`, { method: 'POST', body: { endpointId } });
      assert.equal(response.status, 202);
      const [{ id: deliveryId }] = (await response.json()).data;
      await waitFor(`delivery ${deliveryId}`, async () => {
        const { deliveries } = await (await api(`/v1/events/${eventId}`)).json();
        return deliveries.find((delivery: { id: string }) => delivery.id === deliveryId).status === 'succeeded';
      });
      return receiver.requests.filter((request) => request.path === receiverPath).at(-1)!;
    }

    /** For each `v1` entry alone, the secrets (by name) it verifies with through `standardwebhooks`. */
    function verifiedBy(request: ReceivedRequest, secrets: Record<string, string>) {
      const raw = request.body.toString('utf8');
      return String(request.headers['webhook-signature'])
        .split(' ')
        .map((entry) =>
          Object.entries(secrets)
            .filter(([, secret]) => {
              try {
                new Webhook(secret).verify(raw, {
                  ...(request.headers as Record<string, string>),
                  'webhook-signature': entry,
                });
                return true;
              } catch {
                return false;
              }
            })
            .map(([name]) => name),
        );
    }

    it('signs with the secrets of two rotations within the grace period: three v1 entries, each verifying alone', async () => {
      try {
        const first = await endpoint('/two-rotations');
        const second = await rotate(first.id);
        clockAt(Date.now() + 10_000);
        const third = await rotate(first.id);
        assert.ok(
          third.previousSecretExpiresAt - second.previousSecretExpiresAt >= 10_000,
          'each replaced secret has a grace period of its own',
        );
        const request = await deliveredNow(first.id, '/two-rotations');
        assert.deepEqual(verifiedBy(request, { third: third.secret, second: second.secret, first: first.secret }), [
          ['third'],
          ['second'],
          ['first'],
        ]);
      } finally {
        clockAt(Date.now());
      }
    });

    it('stops signing with each previous secret at its own expiry', async () => {
      try {
        const a = await endpoint('/expiries');
        const b = await rotate(a.id);
        clockAt(Date.now() + 20_000);
        const c = await rotate(a.id);
        const aExpires = b.previousSecretExpiresAt;
        const bExpires = c.previousSecretExpiresAt;
        const secrets = { a: a.secret, b: b.secret, c: c.secret };

        clockAt(aExpires - 10_000);
        assert.deepEqual(verifiedBy(await deliveredNow(a.id, '/expiries'), secrets), [['c'], ['b'], ['a']]);
        clockAt(aExpires + 1_000);
        const afterA = await deliveredNow(a.id, '/expiries');
        assert.deepEqual(
          verifiedBy(afterA, secrets),
          [['c'], ['b']],
          'a receiver still on the first secret fails from its expiry on',
        );
        assert.throws(() =>
          new Webhook(a.secret).verify(afterA.body.toString(), afterA.headers as Record<string, string>),
        );
        clockAt(bExpires + 1_000);
        assert.deepEqual(verifiedBy(await deliveredNow(a.id, '/expiries'), secrets), [['c']]);
      } finally {
        clockAt(Date.now());
      }
    });

    it(`keeps rotating past ${maxPreviousSecrets} overlapping rotations, dropping the secret that expires first`, async () => {
      try {
        const created = await endpoint('/bound');
        const secrets: Record<string, string> = { s0: created.secret };
        const start = Date.now();
        for (let i = 1; i <= maxPreviousSecrets + 1; i++) {
          clockAt(start + i * 1_000);
          secrets[`s${i}`] = (await rotate(created.id)).secret;
        }
        const request = await deliveredNow(created.id, '/bound');
        assert.deepEqual(
          verifiedBy(request, secrets),
          [['s5'], ['s4'], ['s3'], ['s2'], ['s1']],
          'the oldest secret, s0, no longer signs',
        );
      } finally {
        clockAt(Date.now());
      }
    });

    it('keeps every secret that concurrent rotations replaced, with PATCHes racing them', async () => {
      const created = await endpoint('/concurrent');
      const patch = async (description: string) =>
        assert.equal(
          (await api(`/v1/webhook-endpoints/${created.id}`, { method: 'PATCH', body: { description } })).status,
          200,
        );
      const [rotations] = await Promise.all([
        Promise.all([1, 2, 3].map(() => rotate(created.id))),
        Promise.all(['x', 'y', 'z'].map(patch)),
      ]);
      const secrets = Object.fromEntries(
        [created.secret, ...rotations.map((rotation) => rotation.secret)].map((secret, index) => [`s${index}`, secret]),
      );
      const verified = verifiedBy(await deliveredNow(created.id, '/concurrent'), secrets);
      assert.equal(verified.length, 4);
      assert.deepEqual(verified.flat().sort(), ['s0', 's1', 's2', 's3'], 'each secret verifies exactly one entry');
      assert.ok(verified.every((names) => names.length === 1));
    });

    it("answers 404 for another organization's endpoint", async () => {
      const created = await endpoint('/foreign');
      const other = await g.app.tenants.createOrganization({ name: 'Other', credits: 0 });
      const response = await fetch(`${g.app.url}/v1/webhook-endpoints/${created.id}/rotate-secret`, {
        method: 'POST',
        headers: { authorization: `Bearer ${other.apiKey.key}` },
      });
      assert.equal((await errorOf(response, 404)).type, 'not_found_error');
    });
  });
}

/** Migration 0012 moves the one previous secret 0002's columns held into the list. */
describe('migration 0012 on endpoints rotated before it', () => {
  const expiresAt = Date.now() + graceMs;
  async function writeBefore0012(db: Kysely<any>) {
    try {
      const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo(
        '0010-credit-ledger-sequence',
      );
      if (error) throw error;
      await db
        .insertInto('organizations')
        .values({ id: 'org_old', name: 'Old', credit_balance: 0, created_at: 0 })
        .execute();
      const endpoint = {
        organization_id: 'org_old',
        url: 'https://hooks.example/',
        description: null,
        enabled_events: '["*"]',
        status: 'enabled',
        created_at: 0,
        updated_at: 0,
      };
      await db
        .insertInto('webhook_endpoints')
        .values({
          ...endpoint,
          id: 'whe_rotated',
          secret: 'whsec_bmV3',
          previous_secret: 'whsec_b2xk',
          previous_secret_expires_at: expiresAt,
        })
        .execute();
      await db
        .insertInto('webhook_endpoints')
        .values({
          ...endpoint,
          id: 'whe_fresh',
          secret: 'whsec_b25seQ==',
          previous_secret: null,
          previous_secret_expires_at: null,
        })
        .execute();
    } finally {
      await db.destroy();
    }
  }
  async function migrated(persistence: Persistence) {
    try {
      assert.equal(
        (await persistence.migrate()).applied[0],
        '0012-webhook-previous-secrets',
        'the next migration runs first (later ones follow)',
      );
      const rotated = await persistence.webhookEndpoints.get('org_old', 'whe_rotated');
      const fresh = await persistence.webhookEndpoints.get('org_old', 'whe_fresh');
      assert.deepEqual(rotated?.previousSecrets, [{ secret: 'whsec_b2xk', expiresAt }]);
      assert.deepEqual(activeSecrets(rotated!, expiresAt - 1), ['whsec_bmV3', 'whsec_b2xk']);
      assert.deepEqual(fresh?.previousSecrets, []);
    } finally {
      await persistence.close();
    }
  }

  it('on SQLite', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-0012-'));
    const file = path.join(dir, 'old.db');
    try {
      await writeBefore0012(new Kysely({ dialect: new ImmediateSqliteDialect({ database: new BetterSqlite3(file) }) }));
      await migrated(openSqlite(file));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('on Postgres', async () => {
    const url = (await matrix.databases[1]![1]()).DATABASE_URL!;
    await writeBefore0012(
      new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url }) }) }),
    );
    await migrated(openPostgres(url));
  });
});
