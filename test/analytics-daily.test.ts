import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { databaseMatrix, errorOf, startBrowserApp, type BrowserApp } from './support/browser-app.ts';

const dayMs = 86_400_000;
const matrix = databaseMatrix();
after(() => matrix.stop());

const isoDay = (at: number) => new Date(at).toISOString().slice(0, 10);
const zeroDay = (date: string) => ({
  date,
  generations: { processing: 0, complete: 0, failed: 0 },
  creditsSpent: 0,
  conversions: 0,
  attributedConversions: 0,
  attributedRevenue: {},
});

/** `GET /v1/analytics/daily` against the real server: generations, credits and conversions per UTC day. */
for (const [database, environment] of matrix.databases) {
  describe(`daily analytics on ${database}`, () => {
    let b: BrowserApp;
    let shop: Awaited<ReturnType<BrowserApp['organization']>>;
    let other: Awaited<ReturnType<BrowserApp['organization']>>;
    let today: string;
    let yesterday: string;
    const daily = async (apiKey: string, query = '') => {
      const response = await b.v1(apiKey, `/v1/analytics/daily${query}`);
      const text = await response.text();
      assert.equal(response.status, 200, text);
      return JSON.parse(text);
    };
    const order = (overrides: Record<string, unknown>) => ({
      storeId: shop.storeId,
      organizationId: shop.organizationId,
      visitorId: '',
      sessionId: '',
      totalCents: 5_000,
      currency: 'USD',
      platform: 'custom',
      status: 'completed',
      orderCreatedAt: new Date().toISOString(),
      items: [{ productId: 'sku-1', quantity: 1, priceCents: 5_000, totalCents: 5_000 }],
      ...overrides,
    });
    const report = async (body: Record<string, unknown>) => {
      const response = await b.postOrder(body, shop.conversionKey);
      assert.equal(response.status, 200, await response.text());
    };

    before(async () => {
      b = await startBrowserApp({ env: await environment() });
      shop = await b.organization('Daily shop', 100);
      other = await b.organization('Daily other', 100);
      const widget = await b.createWidget(shop.apiKey, { storeId: shop.storeId });
      // Today: through the widget one complete and one failed, by API (no store) one complete.
      const visualized = await b.visualize(widget.id, 'v-daily', 's-daily', ['sku-1']);
      assert.equal(visualized.status, 'complete');
      const failed = await b.visualize(widget.id, 'v-failed', 's-failed', ['sku-1'], {
        image: `${b.g.host.url}/missing`,
      });
      assert.equal(failed.status, 'failed');
      const created = await (await b.g.api.post(shop.apiKey, b.g.validBody())).json();
      assert.equal((await b.g.api.settled(shop.apiKey, created.id)).status, 'complete');
      // Another organization's activity never shows.
      await (await b.g.api.post(other.apiKey, b.g.validBody())).json();

      const now = Date.now();
      today = isoDay(now);
      yesterday = isoDay(now - dayMs);
      // Today: one attributed USD order, one EUR order nobody visualized, one refunded (left out).
      await report(order({ orderId: 'daily-1', visitorId: 'v-daily', sessionId: 's-daily' }));
      await report(order({ orderId: 'daily-2', currency: 'EUR', totalCents: 1_200, items: [] }));
      await report(order({ orderId: 'daily-3', status: 'refunded', visitorId: 'v-daily' }));
      // The last millisecond of yesterday counts for yesterday.
      await report(order({ orderId: 'daily-4', orderCreatedAt: `${yesterday}T23:59:59.999Z` }));
    });
    after(() => b.close());

    it('gives the last 30 days by default, one entry per UTC day, zero-filled, today last', async () => {
      const figures = await daily(shop.apiKey);
      const { balance } = await (await b.v1(shop.apiKey, '/v1/credits')).json();
      assert.equal(figures.object, 'analytics_daily');
      assert.equal(figures.storeId, null);
      assert.equal(figures.data.length, 30);
      assert.equal(figures.to, new Date(Date.parse(today) + dayMs).toISOString());
      assert.equal(figures.from, new Date(Date.parse(today) - 29 * dayMs).toISOString());
      const dates = figures.data.map((day: { date: string }) => day.date);
      assert.deepEqual(
        dates,
        Array.from({ length: 30 }, (_, index) => isoDay(Date.parse(today) - (29 - index) * dayMs)),
      );
      assert.deepEqual(figures.data.at(-1), {
        date: today,
        generations: { processing: 0, complete: 2, failed: 1 },
        // Every credit the organization spent went to today's generations (the failed one's came back).
        creditsSpent: 100 - balance,
        conversions: 2,
        attributedConversions: 1,
        attributedRevenue: { USD: 5_000 },
      });
      assert.deepEqual(figures.data.at(-2), { ...zeroDay(yesterday), conversions: 1 });
      for (const day of figures.data.slice(0, -2)) assert.deepEqual(day, zeroDay(day.date));
    });

    it("narrows to one store: only its widgets' generations and its orders", async () => {
      const figures = await daily(shop.apiKey, `?storeId=${shop.storeId}&from=${yesterday}`);
      assert.equal(figures.storeId, shop.storeId);
      assert.deepEqual(
        figures.data.map((day: { date: string }) => day.date),
        [yesterday, today],
      );
      assert.deepEqual(figures.data[1].generations, { processing: 0, complete: 1, failed: 1 });
      assert.equal(figures.data[1].creditsSpent, 1);
      assert.equal(figures.data[1].conversions, 2);
      assert.equal(figures.data[0].conversions, 1);
      const strangers = await daily(other.apiKey, `?from=${yesterday}`);
      assert.deepEqual(strangers.data[1].generations.complete + strangers.data[1].generations.processing, 1);
      assert.equal(strangers.data[1].conversions, 0);
    });

    it('rounds a range out to whole UTC days, and answers any range of up to 366 days', async () => {
      const rounded = await daily(shop.apiKey, '?from=2020-01-01T12:00:00Z&to=2020-01-02T01:00:00%2B02:00');
      assert.deepEqual([rounded.from, rounded.to], ['2020-01-01T00:00:00.000Z', '2020-01-02T00:00:00.000Z']);
      assert.deepEqual(rounded.data, [zeroDay('2020-01-01')]);
      const leapYear = await daily(shop.apiKey, '?from=2020-01-01&to=2021-01-01');
      assert.equal(leapYear.data.length, 366);
      assert.equal(leapYear.data[59].date, '2020-02-29');
      const ending = await daily(shop.apiKey, `?to=${yesterday}`);
      assert.equal(ending.data.length, 30);
      assert.equal(ending.data.at(-1).date, isoDay(Date.parse(yesterday) - dayMs));
    });

    it('refuses a bad range, an unknown or foreign store, and a conversion key', async () => {
      const refused = async (query: string, status: number, param: string | null) => {
        const error = await errorOf(await b.v1(shop.apiKey, `/v1/analytics/daily${query}`), status);
        assert.equal(error.param, param, `${query}: ${error.message}`);
        return error;
      };
      assert.equal((await refused('?from=2020-01-01&to=2021-01-02', 400, 'to')).code, 'parameter_invalid');
      await refused('?from=2020-01-01T00:00:01Z&to=2021-01-01T00:00:01Z', 400, 'to');
      await refused('?from=2020-02-01&to=2020-01-01', 400, 'to');
      await refused('?from=2020-01-01&to=2020-01-01', 400, 'to');
      await refused('?from=soon', 400, 'from');
      await refused('?to=2020-13-01', 400, 'to');
      await refused('?storeId=', 400, 'storeId');
      assert.equal((await refused('?storeId=str_unknown', 404, 'storeId')).code, 'resource_missing');
      await refused(`?storeId=${other.storeId}`, 404, 'storeId');
      assert.equal(
        (await errorOf(await b.v1(shop.conversionKey, '/v1/analytics/daily'), 401)).type,
        'authentication_error',
      );
    });
  });
}
