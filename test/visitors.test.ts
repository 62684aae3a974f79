import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testIds } from '../kit/testing/ids.ts';
import { generationRecord } from '../kit/testing/records.ts';
import type { VisitorErasure } from '../core/domain/visitor-erasure.ts';
import { databaseMatrix, errorOf, shopOrigin, startBrowserApp, type BrowserApp } from './support/browser-app.ts';
import { invitedSession, type TestSession } from './support/sessions.ts';
import { startS3rver } from './support/s3-server.ts';
import { waitFor } from './support/wait-for.ts';
import { jobsOf } from '../plugins/queue-db/tables.ts';

/**
 * GDPR Articles 15 and 17 for widget visitors, through the API a shop calls: what is held about a
 * visitor across the organization's stores, and its erasure: generations deleted with their images,
 * identities deleted, conversions kept for the revenue figures without the visitor's ids, and an
 * audit record that names who asked but not the visitor.
 */

const matrix = databaseMatrix();
after(() => matrix.stop());

interface Erasure {
  id: string;
  object: string;
  status: 'pending' | 'complete';
  requestedBy: { type: string; id: string };
  requestedAt: string;
  completedAt: string | null;
  generationsDeleted: number;
  identitiesDeleted: number;
  conversionsUnlinked: number;
}

for (const [database, environment] of matrix.databases) {
  describe(`visitors on ${database}`, () => {
    let b: BrowserApp;
    let shop: Awaited<ReturnType<BrowserApp['organization']>>;
    let other: Awaited<ReturnType<BrowserApp['organization']>>;
    let outletId: string;
    let widgets: { main: string; outlet: string; other: string };
    let admin: TestSession;
    let viewer: TestSession;
    /** What the shop knows of Ana: her generations (by store) and the orders reported for her. */
    const ana = { visitorId: `v-ana-${database}`, generations: [] as Array<{ id: string; imageUrl: string }> };

    const json = async (response: Response, status = 200) => {
      const text = await response.text();
      assert.equal(response.status, status, text);
      return JSON.parse(text);
    };
    const visitorPath = (visitorId: string) => `/v1/visitors/${encodeURIComponent(visitorId)}`;
    const access = async (visitorId: string, apiKey = shop.apiKey) => json(await b.v1(apiKey, visitorPath(visitorId)));
    const erase = async (visitorId: string, apiKey = shop.apiKey) =>
      (await json(await b.v1(apiKey, visitorPath(visitorId), { method: 'DELETE' }), 202)) as Erasure;
    const erasure = async (id: string, apiKey = shop.apiKey) =>
      (await json(await b.v1(apiKey, `/v1/visitor-erasures/${id}`))) as Erasure;
    const completed = async (id: string, apiKey = shop.apiKey) => {
      let found: Erasure | undefined;
      await waitFor(
        `erasure ${id} complete`,
        async () => (found = await erasure(id, apiKey)).status === 'complete',
        30_000,
      );
      return found!;
    };
    const identify = async (storeId: string, visitorId: string, sessionId: string, userId: string) => {
      const response = await b.collect({
        type: '$identify',
        storeId,
        visitorId,
        sessionId,
        userId,
        traits: { plan: 'gold', newsletter: true },
      });
      assert.equal(response.status, 202, await response.text());
    };
    const order = async (
      orderId: string,
      visitorId: string,
      sessionId: string,
      productId: string,
      totalCents: number,
    ) => {
      const body = {
        orderId,
        storeId: shop.storeId,
        organizationId: shop.organizationId,
        visitorId,
        sessionId,
        totalCents,
        currency: 'EUR',
        platform: 'custom',
        status: 'completed',
        orderCreatedAt: new Date().toISOString(),
        items: [{ productId, quantity: 1, priceCents: totalCents, totalCents }],
      };
      const response = await b.postOrder(body, shop.conversionKey);
      assert.equal(response.status, 200, await response.text());
    };

    before(async () => {
      // Small batches with a pause between them: an erasure stays pending long enough to be seen so.
      b = await startBrowserApp({
        env: await environment(),
        config: { visitorErasures: { batchSize: 2, batchPauseMs: 100 } },
      });
      shop = await b.organization('Privacy shop', 100);
      other = await b.organization('Privacy stranger', 20);
      outletId = (await json(await b.v1(shop.apiKey, '/v1/stores', { body: { name: 'Outlet' } }), 201)).id;
      widgets = {
        main: (await b.createWidget(shop.apiKey, { storeId: shop.storeId })).id,
        outlet: (await b.createWidget(shop.apiKey, { storeId: outletId })).id,
        other: (await b.createWidget(other.apiKey, { storeId: other.storeId })).id,
      };
      admin = await invitedSession(b.g.app, shop.organizationId, 'admin');
      viewer = await invitedSession(b.g.app, shop.organizationId, 'viewer');

      // Ana visualizes in both stores, in three sessions, and is identified in both.
      for (const [widgetId, sessionId, productId] of [
        [widgets.main, 's-ana-1', 'sku-1'],
        [widgets.main, 's-ana-1', 'sku-2'],
        [widgets.main, 's-ana-2', 'sku-3'],
        [widgets.outlet, 's-ana-3', 'sku-4'],
      ] as const) {
        const made = await b.visualize(widgetId, ana.visitorId, sessionId, [productId]);
        assert.equal(made.status, 'complete');
        ana.generations.push({ id: made.id, imageUrl: (made as unknown as { imageUrl: string }).imageUrl });
      }
      await identify(shop.storeId, ana.visitorId, 's-ana-4', 'customer-ana');
      await identify(outletId, ana.visitorId, 's-ana-3', 'customer-ana');
      // Her orders: by her visitor id; by a generation's session only (the form lost the visitor id);
      // from the browser under another visitor id but an identity's session. Ben's is his own.
      await order('ana-1', ana.visitorId, 's-ana-1', 'sku-1', 4_000);
      await order('ana-2', '', 's-ana-2', 'sku-3', 2_500);
      const browser = await b.collect({
        type: '$conversion',
        storeId: shop.storeId,
        visitorId: 'v-cleared-storage',
        sessionId: 's-ana-4',
        props: { orderId: 'ana-3', totalCents: 1_000, currency: 'EUR' },
      });
      assert.equal(browser.status, 202);
      await b.visualize(widgets.main, 'v-ben', 's-ben', ['sku-9']);
      await order('ben-1', 'v-ben', 's-ben', 'sku-9', 9_900);
      // The same visitor id in another organization is somebody else's business.
      await b.visualize(widgets.other, ana.visitorId, 's-ana-1', ['sku-1']);
    });
    after(() => b?.close());

    it('answers an access request: every kind held, across stores, with totals, uncached', async () => {
      const response = await b.v1(shop.apiKey, visitorPath(ana.visitorId));
      assert.equal(response.headers.get('cache-control'), 'no-store');
      const held = await json(response);
      assert.deepEqual(Object.keys(held), [
        'object',
        'visitorId',
        'limit',
        'generations',
        'identities',
        'conversions',
        'pendingErasure',
      ]);
      assert.deepEqual(
        [held.object, held.visitorId, held.limit, held.pendingErasure],
        ['visitor', ana.visitorId, 100, null],
      );

      assert.deepEqual([held.generations.total, held.generations.has_more], [4, false]);
      assert.deepEqual(
        held.generations.data.map((generation: { id: string }) => generation.id),
        ana.generations.map((generation) => generation.id).reverse(),
        'newest first',
      );
      assert.deepEqual(
        held.generations.data.map((generation: { storeId: string; widgetId: string; sessionId: string }) => [
          generation.storeId,
          generation.widgetId,
          generation.sessionId,
        ]),
        [
          [outletId, widgets.outlet, 's-ana-3'],
          [shop.storeId, widgets.main, 's-ana-2'],
          [shop.storeId, widgets.main, 's-ana-1'],
          [shop.storeId, widgets.main, 's-ana-1'],
        ],
      );
      assert.equal(held.generations.data[0].object, 'generation');
      assert.match(held.generations.data[0].imageUrl, /\/cdn\//);

      assert.equal(held.identities.total, 2);
      assert.deepEqual(
        held.identities.data
          .map((identity: { storeId: string; userId: string; sessionId: string; traits: unknown }) => [
            identity.storeId,
            identity.userId,
            identity.sessionId,
            identity.traits,
          ])
          .sort(),
        [
          [outletId, 'customer-ana', 's-ana-3', { plan: 'gold', newsletter: true }],
          [shop.storeId, 'customer-ana', 's-ana-4', { plan: 'gold', newsletter: true }],
        ].sort(),
      );

      assert.equal(held.conversions.total, 3);
      assert.deepEqual(held.conversions.data.map((conversion: { orderId: string }) => conversion.orderId).sort(), [
        'ana-1',
        'ana-2',
        'ana-3',
      ]);
      assert.ok(
        held.conversions.data.find((conversion: { orderId: string }) => conversion.orderId === 'ana-1').attribution,
        'attributed to her visualization',
      );

      // Each kind paged on its own, in the access answer's order: an identity's cursor is its store id.
      const pages = async (kind: string, limit: number, cursorOf: (item: Record<string, string>) => string) => {
        const items: unknown[] = [];
        for (let startingAfter = ''; ; ) {
          const page = await json(
            await b.v1(
              shop.apiKey,
              `${visitorPath(ana.visitorId)}/${kind}?limit=${limit}${startingAfter ? `&starting_after=${startingAfter}` : ''}`,
            ),
          );
          items.push(...page.data);
          if (!page.has_more) return items;
          startingAfter = cursorOf(page.data.at(-1));
        }
      };
      assert.deepEqual(await pages('generations', 3, (item) => item.id!), held.generations.data);
      assert.deepEqual(await pages('identities', 1, (item) => item.storeId!), held.identities.data);
      assert.deepEqual(await pages('conversions', 2, (item) => item.id!), held.conversions.data);
      assert.deepEqual((await access(ana.visitorId, other.apiKey)).identities.data, []);
      assert.deepEqual(
        await json(
          await b.v1(
            other.apiKey,
            `${visitorPath(ana.visitorId)}/conversions?starting_after=${held.conversions.data[0].id}`,
          ),
        ),
        { object: 'list', data: [], has_more: false },
        "another organization's cursor lists nothing",
      );

      // The other organization holds its own Ana; a viewer's session may look her up too.
      const elsewhere = await access(ana.visitorId, other.apiKey);
      assert.deepEqual(
        [elsewhere.generations.total, elsewhere.identities.total, elsewhere.conversions.total],
        [1, 0, 0],
      );
      const asViewer = await json(await fetch(b.url(visitorPath(ana.visitorId)), { headers: viewer.headers() }));
      assert.equal(asViewer.generations.total, 4);

      const nobody = await access('v-never-seen');
      assert.deepEqual(
        [nobody.generations, nobody.identities, nobody.conversions],
        Array(3).fill({ total: 0, has_more: false, data: [] }),
      );
    });

    it('bounds the answer: at most 100 of each kind, with the total; the paged lists give them all', async () => {
      const { persistence } = b.g.app.container.cradle;
      for (let index = 0; index < 105; index += 1) {
        await persistence.generations.create(
          generationRecord(shop.organizationId, {
            storeId: shop.storeId,
            widgetId: widgets.main,
            visitorId: 'v-crafted',
            sessionId: `s-${index}`,
            createdAt: 1_000 + index,
          }),
        );
      }
      const held = await access('v-crafted');
      assert.deepEqual(
        [held.generations.total, held.generations.has_more, held.generations.data.length],
        [105, true, 100],
      );
      assert.equal(held.generations.data[0].createdAt, new Date(1_104).toISOString(), 'the newest');

      // The rest, as any list is paged: limit and starting_after while has_more.
      const response = await b.v1(shop.apiKey, `${visitorPath('v-crafted')}/generations?limit=100`);
      assert.equal(response.headers.get('cache-control'), 'no-store');
      const first = await json(response);
      assert.deepEqual([first.object, first.has_more, first.data.length], ['list', true, 100]);
      assert.deepEqual(first.data, held.generations.data, 'the first page is what the access answer lists');
      const rest = await json(
        await b.v1(
          shop.apiKey,
          `${visitorPath('v-crafted')}/generations?limit=100&starting_after=${first.data[99].id}`,
        ),
      );
      assert.deepEqual([rest.has_more, rest.data.length], [false, 5]);
      const createdAt = [...first.data, ...rest.data].map((generation: { createdAt: string }) =>
        Date.parse(generation.createdAt),
      );
      assert.deepEqual(
        createdAt,
        Array.from({ length: 105 }, (_, index) => 1_104 - index),
        'all 105, each once, newest first',
      );
      assert.deepEqual(
        (await json(await b.v1(shop.apiKey, `${visitorPath('v-crafted')}/generations`))).data.length,
        10,
        'ten by default',
      );

      // What no list takes: the error envelope, naming the parameter.
      for (const [query, param] of [
        ['limit=0', 'limit'],
        ['limit=101', 'limit'],
        ['limit=x', 'limit'],
        ['starting_after=a%00b', 'starting_after'],
        [`starting_after=${'x'.repeat(65)}`, 'starting_after'],
      ] as const) {
        const error = await errorOf(await b.v1(shop.apiKey, `${visitorPath('v-crafted')}/conversions?${query}`), 400);
        assert.deepEqual([error.type, error.param], ['invalid_request_error', param], query);
      }
      assert.equal(
        (await errorOf(await b.v1(shop.apiKey, `/v1/visitors/${'x'.repeat(129)}/identities`), 400)).param,
        'visitorId',
      );
      assert.equal(
        (await errorOf(await b.v1(shop.conversionKey, `${visitorPath('v-crafted')}/identities`), 401)).type,
        'authentication_error',
      );
    });

    it('takes any visitor id the SDK can make, URL-encoded, and refuses what cannot be one', async () => {
      const odd = `v/ü ${database}?#1`;
      await identify(shop.storeId, odd, 's-odd', 'customer-odd');
      assert.equal((await access(odd)).identities.data[0].userId, 'customer-odd');
      for (const [path, why] of [
        [`/v1/visitors/${'x'.repeat(129)}`, 'too long'],
        ['/v1/visitors/v%00x', 'NUL'],
      ] as const) {
        const error = await errorOf(await b.v1(shop.apiKey, path), 400);
        assert.deepEqual([error.code, error.param], ['parameter_invalid', 'visitorId'], why);
        assert.equal((await errorOf(await b.v1(shop.apiKey, path, { method: 'DELETE' }), 400)).param, 'visitorId');
      }
      assert.equal(
        (await errorOf(await b.v1(shop.conversionKey, visitorPath(ana.visitorId)), 401)).type,
        'authentication_error',
      );
      assert.equal((await errorOf(await fetch(b.url(visitorPath(ana.visitorId))), 401)).code, 'missing_api_key');
    });

    it("refuses a viewer the erasure; an admin's session erases, named as the requester", async () => {
      const refused = await errorOf(
        await fetch(b.url(visitorPath('v-dashboard')), {
          method: 'DELETE',
          headers: viewer.headers({ origin: b.g.app.container.cradle.config.publicUrl }),
        }),
        403,
      );
      assert.equal(refused.code, 'insufficient_role');
      const noCsrf = await errorOf(
        await fetch(b.url(visitorPath('v-dashboard')), { method: 'DELETE', headers: { cookie: admin.cookie } }),
        403,
      );
      assert.equal(noCsrf.code, 'csrf_token_invalid');
      await identify(shop.storeId, 'v-dashboard', 's-dashboard', 'customer-dashboard');
      const started = (await json(
        await fetch(b.url(visitorPath('v-dashboard')), { method: 'DELETE', headers: admin.headers() }),
        202,
      )) as Erasure;
      assert.deepEqual(started.requestedBy, { type: 'user', id: admin.userId });
      const done = await completed(started.id);
      assert.deepEqual([done.identitiesDeleted, done.generationsDeleted, done.conversionsUnlinked], [1, 0, 0]);
    });

    it('erases a visitor: generations and images gone, identities gone, conversions kept without the ids, an audit record without them', async () => {
      const { persistence } = b.g.app.container.cradle;
      const summaryBefore = await b.summary(shop.apiKey, `?storeId=${shop.storeId}`);
      const held = await access(ana.visitorId);
      const imageUrls = held.generations.data.map((generation: { imageUrl: string }) => generation.imageUrl);
      for (const url of imageUrls) assert.equal((await fetch(url)).status, 200, 'her images are served before');

      // Two requests at once, and one more while it is pending: one erasure.
      const [first, second] = await Promise.all([erase(ana.visitorId), erase(ana.visitorId)]);
      assert.equal(second.id, first.id, 'one erasure per pending visitor');
      assert.match(first.id, /^vera_[0-9A-Za-z]{24}$/);
      assert.deepEqual(
        { ...first, id: undefined, requestedAt: undefined },
        {
          id: undefined,
          object: 'visitor_erasure',
          status: 'pending',
          requestedBy: first.requestedBy,
          requestedAt: undefined,
          completedAt: null,
          generationsDeleted: first.generationsDeleted,
          identitiesDeleted: first.identitiesDeleted,
          conversionsUnlinked: first.conversionsUnlinked,
        },
      );
      assert.equal(first.requestedBy.type, 'api_key');
      assert.match(first.requestedBy.id, /^key_/);
      const whilePending = await access(ana.visitorId);
      assert.equal(whilePending.pendingErasure?.id, first.id, 'the access answer says an erasure is under way');
      assert.equal((await erase(ana.visitorId)).id, first.id);

      const done = await completed(first.id);
      assert.deepEqual(
        [done.generationsDeleted, done.identitiesDeleted, done.conversionsUnlinked],
        [4, 2, 3],
        'exactly what was held, each once',
      );
      assert.ok(Date.parse(done.completedAt!) >= Date.parse(done.requestedAt));
      const record = JSON.stringify(done);
      for (const id of [ana.visitorId, 's-ana-1', 's-ana-2', 's-ana-3', 's-ana-4'])
        assert.ok(!record.includes(id), `the record does not name ${id}`);
      assert.equal(
        await persistence.visitorErasures.subject(first.id),
        null,
        "the erasure's work, with her visitor id, is gone",
      );
      assert.deepEqual(await persistence.visitorErasures.sessions(first.id, 10), [], 'and so are her session ids');
      assert.equal(await jobsOf(persistence).pending(['erase_visitor']), 0);

      // Nothing is held any more.
      const after = await access(ana.visitorId);
      assert.deepEqual(
        [after.generations.total, after.identities.total, after.conversions.total, after.pendingErasure],
        [0, 0, 0, null],
      );
      for (const { id } of ana.generations) {
        assert.equal(
          (await errorOf(await b.v1(shop.apiKey, `/v1/generations/${id}`), 404)).code,
          'resource_missing',
          `generation ${id} is gone`,
        );
        const keyless = await fetch(
          b.url(`/api/widgets/${widgets.main}/generations/${id}?visitorId=${encodeURIComponent(ana.visitorId)}`),
          { headers: { origin: shopOrigin } },
        );
        assert.equal(keyless.status, 404);
      }
      assert.ok(
        !(await b.v1(shop.apiKey, '/v1/generations?limit=100').then((r) => r.json())).data.some(
          (generation: { id: string }) => ana.generations.some((made) => made.id === generation.id),
        ),
      );
      await waitFor(
        'her images deleted',
        async () =>
          (await Promise.all(imageUrls.map(async (url: string) => (await fetch(url)).status))).every(
            (status) => status === 404,
          ),
        30_000,
      );

      // Her orders stay, with their totals and attribution, without her ids; Ben's and the stranger's are untouched.
      const { data } = await b.conversions(shop.apiKey, '?limit=100');
      for (const orderId of ['ana-1', 'ana-2', 'ana-3']) {
        const kept = data.find((conversion) => conversion.orderId === orderId);
        assert.ok(kept, `${orderId} is kept`);
        assert.deepEqual([kept.visitorId, kept.sessionId], [null, null], `${orderId} is unlinked`);
      }
      assert.ok(data.find((conversion) => conversion.orderId === 'ana-1')!.attribution, 'its attribution counts on');
      const ben = data.find((conversion) => conversion.orderId === 'ben-1')!;
      assert.deepEqual([ben.visitorId, ben.sessionId], ['v-ben', 's-ben']);
      assert.equal((await access('v-ben')).generations.total, 1);
      assert.equal(
        (await access(ana.visitorId, other.apiKey)).generations.total,
        1,
        "the other organization's Ana is not ours to erase",
      );
      const summaryAfter = await b.summary(shop.apiKey, `?storeId=${shop.storeId}`);
      assert.deepEqual(
        [summaryAfter.conversions, summaryAfter.attributedConversions, summaryAfter.attributedRevenue],
        [summaryBefore.conversions, summaryBefore.attributedConversions, summaryBefore.attributedRevenue],
        'the revenue figures are unchanged',
      );

      // Erasing again is a new erasure, of nothing.
      const again = await completed((await erase(ana.visitorId)).id);
      assert.notEqual(again.id, first.id);
      assert.deepEqual([again.generationsDeleted, again.identitiesDeleted, again.conversionsUnlinked], [0, 0, 0]);
    });

    it('counts exactly and leaves nothing behind when the same erasure runs several times at once (a run that outlived its lease)', async () => {
      const { persistence, eraseVisitor } = b.g.app.container.cradle;
      const visitorId = 'v-twice';
      for (let index = 0; index < 5; index += 1) {
        await persistence.generations.create(
          generationRecord(shop.organizationId, {
            storeId: shop.storeId,
            widgetId: widgets.main,
            visitorId,
            sessionId: `s-twice-${index}`,
            createdAt: 5_000 + index,
          }),
        );
      }
      await identify(shop.storeId, visitorId, 's-twice-identity', 'customer-twice');
      await order('twice-1', visitorId, 's-twice-0', 'sku-1', 100);
      await order('twice-2', '', 's-twice-3', 'sku-1', 100);
      await order('twice-3', '', 's-twice-identity', 'sku-1', 100);
      const started = await erase(visitorId);
      // The worker runs the job; two more runs of it start beside it.
      const job = {
        id: 'job_twice',
        kind: 'erase_visitor',
        payload: { erasureId: started.id, organizationId: shop.organizationId },
        attempts: 1,
        failures: 0,
      };
      await Promise.all([eraseVisitor(job), eraseVisitor(job)]);
      const done = await completed(started.id);
      assert.deepEqual([done.generationsDeleted, done.identitiesDeleted, done.conversionsUnlinked], [5, 1, 3]);
      assert.equal(await persistence.visitorErasures.subject(started.id), null);
      assert.deepEqual(
        await persistence.visitorErasures.sessions(started.id, 10),
        [],
        'no session id outlives the erasure',
      );
      const after = await access(visitorId);
      assert.deepEqual([after.generations.total, after.identities.total, after.conversions.total], [0, 0, 0]);
    });

    it('follows a session id found only on a conversion: the order reported in that session without the visitor id is found and unlinked', async () => {
      const shop3 = await b.organization('Privacy sessions', 10);
      await b.createWidget(shop3.apiKey, { storeId: shop3.storeId });
      const visitorId = 'v-checkout-only';
      // The browser reports the order with both ids; the shop's webhook reports another in that session only.
      const browser = await b.collect({
        type: '$conversion',
        storeId: shop3.storeId,
        visitorId,
        sessionId: 's-checkout',
        props: { orderId: 'seen-1', totalCents: 1_000, currency: 'EUR' },
      });
      assert.equal(browser.status, 202, await browser.text());
      const body = {
        orderId: 'seen-2',
        storeId: shop3.storeId,
        organizationId: shop3.organizationId,
        visitorId: '',
        sessionId: 's-checkout',
        totalCents: 2_000,
        currency: 'EUR',
        platform: 'custom',
        status: 'completed',
        orderCreatedAt: new Date().toISOString(),
        items: [],
      };
      const webhook = await b.postOrder(body, shop3.conversionKey);
      assert.equal(webhook.status, 200, await webhook.text());

      const held = await access(visitorId, shop3.apiKey);
      assert.equal(held.conversions.total, 2);
      assert.deepEqual(held.conversions.data.map((conversion: { orderId: string }) => conversion.orderId).sort(), [
        'seen-1',
        'seen-2',
      ]);

      const done = await completed((await erase(visitorId, shop3.apiKey)).id, shop3.apiKey);
      assert.equal(done.conversionsUnlinked, 2);
      const { data } = await b.conversions(shop3.apiKey, '?limit=100');
      assert.deepEqual(
        data.map((conversion) => [conversion.orderId, conversion.visitorId, conversion.sessionId]).sort(),
        [
          ['seen-1', null, null],
          ['seen-2', null, null],
        ],
      );
    });

    it('lists erasures newest first, pages them, and keeps them to their organization', async () => {
      const page = await json(await b.v1(shop.apiKey, '/v1/visitor-erasures?limit=2'));
      assert.equal(page.object, 'list');
      assert.equal(page.data.length, 2);
      assert.equal(page.has_more, true);
      const rest = await json(
        await b.v1(shop.apiKey, `/v1/visitor-erasures?limit=100&starting_after=${page.data[1].id}`),
      );
      const all = [...page.data, ...rest.data] as Erasure[];
      assert.equal(all.length, 4, "the dashboard's, Ana's, the repeat and v-twice's");
      assert.deepEqual(
        all.map((item) => item.requestedAt),
        all
          .map((item) => item.requestedAt)
          .sort()
          .reverse(),
      );
      assert.ok(all.every((item) => item.status === 'complete'));
      assert.deepEqual((await json(await b.v1(other.apiKey, '/v1/visitor-erasures'))).data, []);
      const foreign = await errorOf(await b.v1(other.apiKey, `/v1/visitor-erasures/${all[0]!.id}`), 404);
      assert.equal(foreign.code, 'resource_missing');
      assert.equal((await errorOf(await b.v1(shop.apiKey, '/v1/visitor-erasures/vera_nope'), 404)).param, 'id');
    });

    it('queues the job of a pending erasure again when it is asked for again after the queue gave the job up, and only then', async () => {
      const { persistence, queue } = b.g.app.container.cradle;
      const shop4 = await b.organization('Privacy stuck', 10);
      await b.createWidget(shop4.apiKey, { storeId: shop4.storeId });
      await identify(shop4.storeId, 'v-stuck', 's-stuck', 'customer-stuck');
      const now = Date.now();
      const pending = (): VisitorErasure => ({
        id: testIds.id('vera_'),
        organizationId: shop4.organizationId,
        status: 'pending',
        requestedBy: { type: 'api_key', id: 'key_stuck' },
        requestedAt: now,
        completedAt: null,
        generationsDeleted: 0,
        identitiesDeleted: 0,
        conversionsUnlinked: 0,
      });
      // What an erasure whose job failed maxAttempts times is left as: pending, its job a dead letter.
      const stuck = pending();
      await persistence.transaction(async (tx) => {
        await tx.visitorErasures.request(stuck, 'v-stuck');
        const payload = { erasureId: stuck.id, organizationId: shop4.organizationId };
        await jobsOf(tx).recordDead({
          id: testIds.id('job_'),
          kind: 'erase_visitor',
          payload,
          attempts: 5,
          failures: 5,
          lastError: 'boom',
          createdAt: now,
          diedAt: now,
        });
      });
      assert.equal(await jobsOf(persistence).pending(['erase_visitor']), 0);

      const again = await erase('v-stuck', shop4.apiKey);
      assert.equal(again.id, stuck.id, 'the pending erasure, not a new one');
      const done = await completed(stuck.id, shop4.apiKey);
      assert.equal(done.identitiesDeleted, 1);
      assert.equal((await access('v-stuck', shop4.apiKey)).identities.total, 0);

      // One whose job is still queued (due in an hour): asking again queues no second job.
      const waiting = pending();
      await persistence.transaction(async (tx) => {
        await tx.visitorErasures.request(waiting, 'v-waiting');
        await queue.enqueue(tx, {
          kind: 'erase_visitor',
          payload: { erasureId: waiting.id, organizationId: shop4.organizationId },
          runAt: now + 3_600_000,
          createdAt: now,
        });
      });
      assert.equal((await erase('v-waiting', shop4.apiKey)).id, waiting.id);
      assert.equal(await jobsOf(persistence).pending(['erase_visitor']), 1, 'its own job only');
    });
  });
}

/**
 * The keys s3rver holds under `prefix`, read from it directly (it answers anonymous listings).
 * s3rver lists a folder, then reads each object's metadata file: an object deleted in between (the
 * erasure's own deletes) makes it answer 500, so a 500 is asked again, a few times.
 */
async function s3Keys(endpoint: string, bucket: string, prefix: string): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(`${endpoint}/${bucket}?list-type=2&prefix=${encodeURIComponent(prefix)}`);
    if (response.status === 500 && attempt < 5) {
      await response.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 50));
      continue;
    }
    const listing = await response.text();
    assert.equal(response.status, 200, listing);
    return [...listing.matchAll(/<Key>([^<]+)<\/Key>/g)].map((match) => match[1]!);
  }
}

for (const [database, environment] of matrix.databases) {
  describe(`a visitor's erasure with images on S3 (s3rver, ${database})`, () => {
    const bucket = 'erasure';
    let s3: Awaited<ReturnType<typeof startS3rver>>;
    let b: BrowserApp;
    before(async () => {
      s3 = await startS3rver(bucket);
      b = await startBrowserApp({
        env: await environment(),
        config: {
          plugins: { cdn: 's3' },
          pluginOptions: {
            'queue-db': { pollIntervalMs: 50 },
            'cdn-s3': { bucket, endpoint: s3.endpoint, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
          },
        },
      });
    });
    after(async () => {
      await b?.close();
      await s3?.close();
    });

    it("deletes the visitor's originals and variants from the bucket, and leaves another's", async () => {
      const shop = await b.organization('S3 privacy shop', 20);
      const widgetId = (await b.createWidget(shop.apiKey, { storeId: shop.storeId })).id;
      const hers = [
        await b.visualize(widgetId, 'v-s3-ana', 's-s3-1', ['sku-1']),
        await b.visualize(widgetId, 'v-s3-ana', 's-s3-2', ['sku-2']),
      ];
      const his = await b.visualize(widgetId, 'v-s3-ben', 's-s3-3', ['sku-3']);
      const objectsOf = (id: string) => s3Keys(s3.endpoint, bucket, `public/gen/${id}/`);
      for (const { id } of [...hers, his])
        assert.ok((await objectsOf(id)).length > 1, `${id}'s images are in the bucket`);

      const response = await b.v1(shop.apiKey, '/v1/visitors/v-s3-ana', { method: 'DELETE' });
      assert.equal(response.status, 202, await response.clone().text());
      const { id } = (await response.json()) as Erasure;
      await waitFor(
        'erasure complete',
        async () =>
          ((await (await b.v1(shop.apiKey, `/v1/visitor-erasures/${id}`)).json()) as Erasure).status === 'complete',
        30_000,
      );
      await waitFor(
        'her objects gone from s3rver',
        async () => (await Promise.all(hers.map(({ id }) => objectsOf(id)))).every((keys) => keys.length === 0),
        30_000,
      );
      assert.ok((await objectsOf(his.id)).length > 1, "another visitor's images stay");
    });
  });
}
