import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { testIds } from './ids.ts';
import type { PersistenceSuiteContext } from './persistence-context.ts';
import { generationRecord, webhookEndpointRecord } from './records.ts';

/**
 * Retention (`RetentionRepositories`), part of the persistence contract: pruning by age in bounded
 * batches (dead letters are the queue's, pruned through `JobQueue.deadLetters`). The suite shares one database, so the rows pruned here are dated in 1970, older than
 * anything another case writes.
 */
export function persistenceRetentionContract(context: PersistenceSuiteContext) {
  describe('retention', () => {
    it('prunes old events with their deliveries and attempts in bounded batches, never one still being delivered', async () => {
      const store = context.store();
      const { organization } = await context.tenants().createOrganization({ name: 'Retention', credits: 0 });
      const endpoint = webhookEndpointRecord(organization.id);
      await store.webhookEndpoints.create(endpoint);
      const events = ['ended_a', 'ended_b', 'ended_c', 'retrying'].map((name, index) => ({
        id: testIds.id(`evt_${name}_`),
        organizationId: organization.id,
        type: 'generation.completed',
        body: '{}',
        createdAt: index + 1,
      }));
      for (const [index, event] of events.entries()) {
        await store.events.append(event);
        const deliveryId = testIds.id('whd_');
        const status = index === 3 ? ('pending' as const) : ('succeeded' as const);
        await store.deliveries.create({
          id: deliveryId,
          eventId: event.id,
          endpointId: endpoint.id,
          status,
          attemptCount: 1,
          nextAttemptAt: null,
          lastError: null,
          createdAt: 1,
          updatedAt: 1,
        });
        await store.deliveries.recordAttempt({
          id: testIds.id('wha_'),
          deliveryId,
          attemptedAt: 2,
          statusCode: 200,
          error: null,
          durationMs: 3,
          responseBody: null,
        });
      }
      const cutoff = 10_000;
      assert.equal(
        await store.transaction((tx) => tx.retention.pruneEvents(cutoff, 2)),
        2,
        'a batch is at most its limit',
      );
      assert.equal(await store.transaction((tx) => tx.retention.pruneEvents(cutoff, 2)), 1);
      assert.equal(await store.transaction((tx) => tx.retention.pruneEvents(cutoff, 2)), 0);
      for (const event of events.slice(0, 3)) {
        assert.equal(await store.events.get(organization.id, event.id), null);
        assert.deepEqual(await store.deliveries.forEvent(event.id), []);
        assert.deepEqual(await store.deliveries.attemptsForEvent(event.id), []);
      }
      const retrying = events[3]!;
      assert.ok(await store.events.get(organization.id, retrying.id), 'an event whose delivery is pending stays');
      assert.equal((await store.deliveries.attemptsForEvent(retrying.id)).length, 1, 'with its history');
    });

    it('prunes idempotency keys older than the time given, in bounded batches', async () => {
      const store = context.store();
      const { organization } = await context.tenants().createOrganization({ name: 'Old keys', credits: 0 });
      const generationId = testIds.id('gen_');
      await store.generations.create(generationRecord(organization.id, { id: generationId }));
      for (const [key, at] of [
        ['old-1', 1],
        ['old-2', 2],
        ['old-3', 3],
        ['recent', Date.now()],
      ] as const)
        await store.idempotencyKeys.bind(organization.id, key, generationId, at);
      assert.equal(await store.transaction((tx) => tx.retention.pruneIdempotencyKeys(10_000, 2)), 2);
      assert.equal(await store.transaction((tx) => tx.retention.pruneIdempotencyKeys(10_000, 2)), 1);
      assert.equal(await store.idempotencyKeys.find(organization.id, 'old-1'), null);
      assert.equal(await store.idempotencyKeys.find(organization.id, 'recent'), generationId);
    });
  });
}
