import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { databaseMatrix, errorOf } from './support/databases.ts';
import { startGenerationApp, type GenerationApp } from './support/generation-app.ts';

const matrix = databaseMatrix();
after(() => matrix.stop());

interface Generation {
  id: string;
  status: string;
  mode: string;
  createdAt: string;
}

/** What the dashboard's gallery and detail view ask for: generation filters, and a generation's events. */
for (const [database, environment] of matrix.databases) {
  describe(`generation filters and a generation's events on ${database}`, () => {
    let g: GenerationApp;
    let key: string;
    let otherKey: string;
    const made: Generation[] = [];
    const get = async (apiKey: string, path: string) => {
      const response = await g.api.get(apiKey, path);
      const text = await response.text();
      assert.equal(response.status, 200, text);
      return JSON.parse(text);
    };
    /** Every page of a list, following `starting_after`, two at a time. */
    const all = async (query: string) => {
      const ids: string[] = [];
      for (let cursor = ''; ; ) {
        const page = await get(key, `/v1/generations?limit=2&${query}${cursor}`);
        ids.push(...page.data.map((item: Generation) => item.id));
        if (!page.has_more) return ids;
        cursor = `&starting_after=${page.data.at(-1).id}`;
      }
    };
    const newestFirst = (keep: (generation: Generation) => boolean) =>
      made
        .filter(keep)
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id))
        .map((item) => item.id);

    before(async () => {
      g = await startGenerationApp({ env: await environment() });
      const first = await g.app.tenants.createOrganization({ name: 'Filters', credits: 100 });
      const second = await g.app.tenants.createOrganization({ name: 'Filters other', credits: 100 });
      key = first.apiKey.key;
      otherKey = second.apiKey.key;
      const bodies = [
        g.validBody(),
        g.validBody({ mode: 'room-visualizer' }),
        g.validBody({ image: `${g.host.url}/missing` }),
        g.validBody({ mode: 'room-visualizer' }),
        g.validBody({ mode: 'room-visualizer', image: `${g.host.url}/missing` }),
      ];
      for (const body of bodies) {
        const created = await (await g.api.post(key, body)).json();
        made.push(await g.api.settled(key, created.id));
        // Distinct milliseconds, so a range can fall between two of them.
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await g.api.settled(otherKey, (await (await g.api.post(otherKey, g.validBody())).json()).id);
    });
    after(() => g.close());

    it('filters by mode, status and creation time, together and page by page', async () => {
      assert.deepEqual(
        await all('mode=room-visualizer'),
        newestFirst((item) => item.mode === 'room-visualizer'),
      );
      assert.deepEqual(
        await all('status=failed'),
        newestFirst((item) => item.status === 'failed'),
      );
      assert.deepEqual(
        await all('mode=room-visualizer&status=complete'),
        newestFirst((item) => item.mode === 'room-visualizer' && item.status === 'complete'),
      );
      const from = made[1]!.createdAt;
      const to = made[3]!.createdAt;
      assert.deepEqual(
        await all(`from=${from}&to=${to}`),
        newestFirst((item) => item.createdAt >= from && item.createdAt < to),
      );
      assert.deepEqual(
        await all(`from=${from}&mode=room-visualizer&status=failed`),
        newestFirst((item) => item.createdAt >= from && item.mode === 'room-visualizer' && item.status === 'failed'),
      );
      assert.deepEqual(await all('to=2020-01-01'), []);
      assert.equal((await all('from=2020-01-01')).length, made.length, "only the key's organization");
    });

    it('refuses an unknown mode and a bad range', async () => {
      const refused = async (query: string, param: string) => {
        const error = await errorOf(await g.api.get(key, `/v1/generations?${query}`), 400);
        assert.deepEqual([error.code, error.param], ['parameter_invalid', param], error.message);
      };
      await refused('mode=sketch', 'mode');
      await refused('from=yesterday', 'from');
      await refused('to=2025-02-30', 'to');
      await refused('from=2025-02-01&to=2025-01-01', 'to');
    });

    it("lists a generation's events, whose deliveries and attempts the detail view then reads", async () => {
      for (const generation of made) {
        const events = await get(key, `/v1/events?generationId=${generation.id}`);
        assert.equal(events.has_more, false);
        assert.deepEqual(
          events.data.map((event: { type: string; data: { id: string } }) => [event.type, event.data.id]),
          [[generation.status === 'complete' ? 'generation.completed' : 'generation.failed', generation.id]],
        );
        const detail = await get(key, `/v1/events/${events.data[0].id}`);
        assert.deepEqual(detail.deliveries, [], 'no endpoint, no delivery');
        assert.deepEqual((await get(key, `/v1/events/${events.data[0].id}/attempts`)).data, []);
      }
      assert.deepEqual(
        (await get(otherKey, `/v1/events?generationId=${made[0]!.id}`)).data,
        [],
        "another organization's generation lists nothing",
      );
      assert.deepEqual((await get(key, '/v1/events?generationId=agen_unknown&type=generation.completed')).data, []);
      const error = await errorOf(await g.api.get(key, `/v1/events?generationId=${'x'.repeat(65)}`), 400);
      assert.equal(error.param, 'generationId');
    });
  });
}
