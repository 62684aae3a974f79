import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { photoJpeg } from './support/generation-app.ts';
import { databaseMatrix, errorOf, shopOrigin, startBrowserApp, type BrowserApp } from './support/browser-app.ts';
import { startHttpsServer, type TestHttpsServer } from './support/https-server.ts';
import { cli } from './support/cli.ts';

const day = 86_400_000;

const matrix = databaseMatrix();
after(() => matrix.stop());

for (const [database, environment] of matrix.databases) {
  describe(`widgets on ${database}`, () => {
    let b: BrowserApp;
    let env: Record<string, string>;
    let receiver: TestHttpsServer;
    let shop: Awaited<ReturnType<BrowserApp['organization']>>;
    let other: Awaited<ReturnType<BrowserApp['organization']>>;
    let widget: Awaited<ReturnType<BrowserApp['createWidget']>>;
    const balance = async (apiKey = shop.apiKey) =>
      (await (await b.v1(apiKey, '/v1/credits')).json()).balance as number;
    const keyless = (path: string, init: RequestInit & { origin?: string | null } = {}) => {
      const { origin = shopOrigin, ...rest } = init;
      return fetch(b.url(path), {
        ...rest,
        headers: { ...(origin ? { origin } : {}), ...(rest.headers as Record<string, string> | undefined) },
      });
    };

    before(async () => {
      env = await environment();
      receiver = await startHttpsServer((_req, res) => void res.writeHead(204).end());
      b = await startBrowserApp({ env });
      shop = await b.organization('Widget shop', 50);
      other = await b.organization('Other shop', 5);
      widget = await b.createWidget(shop.apiKey, {
        storeId: shop.storeId,
        imageSize: '2K',
        allowedOrigins: [shopOrigin, 'http://localhost:3000'],
      });
    });
    after(async () => {
      await b.close();
      await receiver.close();
    });

    it('creates, lists and reads widgets through the API', async () => {
      assert.match(widget.id, /^wdg_[0-9A-Za-z]{24}$/);
      assert.deepEqual(
        { ...widget, id: undefined, createdAt: undefined },
        {
          id: undefined,
          object: 'widget',
          storeId: shop.storeId,
          mode: 'virtual-try-on',
          imageSize: '2K',
          allowedOrigins: [shopOrigin, 'http://localhost:3000'],
          dailyGenerationCap: 500,
          dailyCreditCap: null,
          usageToday: { date: new Date().toISOString().slice(0, 10), generations: 0, credits: 0 },
          createdAt: undefined,
        },
      );
      const normalized = await b.createWidget(shop.apiKey, {
        storeId: shop.storeId,
        mode: 'room-visualizer',
        allowedOrigins: ['HTTPS://Shop.Example:443/', 'https://shop.example'],
        dailyGenerationCap: 3,
      });
      assert.deepEqual(normalized.allowedOrigins, [shopOrigin], 'stored as browsers send Origin, once');
      assert.equal(normalized.imageSize, '1K');

      const list = await (await b.v1(shop.apiKey, '/v1/widgets')).json();
      assert.equal(list.object, 'list');
      assert.deepEqual(
        list.data.slice(0, 2).map((item: { id: string }) => item.id),
        [normalized.id, widget.id],
        'newest first',
      );
      const page = await (await b.v1(shop.apiKey, `/v1/widgets?limit=1&starting_after=${normalized.id}`)).json();
      assert.equal(page.data[0].id, widget.id);
      assert.deepEqual(await (await b.v1(shop.apiKey, `/v1/widgets/${widget.id}`)).json(), widget);
      assert.equal((await errorOf(await b.v1(other.apiKey, `/v1/widgets/${widget.id}`), 404)).type, 'not_found_error');
      assert.deepEqual((await (await b.v1(other.apiKey, '/v1/widgets')).json()).data, []);

      const valid = { storeId: shop.storeId, mode: 'virtual-try-on', allowedOrigins: [shopOrigin] };
      const cases: Array<[Record<string, unknown>, string, number?]> = [
        [{ ...valid, mode: 'x-ray' }, 'mode'],
        [{ ...valid, imageSize: '8K' }, 'imageSize'],
        [{ ...valid, allowedOrigins: [] }, 'allowedOrigins'],
        [
          { ...valid, allowedOrigins: Array.from({ length: 21 }, (_, i) => `https://shop${i}.example`) },
          'allowedOrigins',
        ],
        [{ ...valid, allowedOrigins: [shopOrigin, 'https://shop.example/checkout'] }, 'allowedOrigins[1]'],
        [{ ...valid, allowedOrigins: ['shop.example'] }, 'allowedOrigins[0]'],
        [{ ...valid, allowedOrigins: ['ftp://shop.example'] }, 'allowedOrigins[0]'],
        [{ ...valid, allowedOrigins: ['https://user:pw@shop.example'] }, 'allowedOrigins[0]'],
        [{ ...valid, dailyGenerationCap: 0 }, 'dailyGenerationCap'],
        [{ ...valid, dailyGenerationCap: 1.5 }, 'dailyGenerationCap'],
        [{ ...valid, dailyCreditCap: 0 }, 'dailyCreditCap'],
        [{ ...valid, dailyCreditCap: 2.5 }, 'dailyCreditCap'],
        [{ ...valid, dailyCreditCap: '100' }, 'dailyCreditCap'],
        [{ ...valid, dailyCreditCap: 10_000_001 }, 'dailyCreditCap'],
        [{ ...valid, imageSize: '4K', dailyCreditCap: 2 }, 'dailyCreditCap'],
        [{ ...valid, colour: 'red' }, 'colour'],
        [{ ...valid, storeId: other.storeId }, 'storeId', 404],
      ];
      for (const [body, param, status = 400] of cases) {
        const error = await errorOf(await b.v1(shop.apiKey, '/v1/widgets', { body }), status);
        assert.equal(error.param, param, `${JSON.stringify(body).slice(0, 120)} → ${error.message}`);
      }
      assert.equal((await errorOf(await b.v1(shop.conversionKey, '/v1/widgets'), 401)).type, 'authentication_error');
    });

    it('creates and lists widgets from the CLI', async () => {
      const cliEnv = { VISUALIZER_DATA_DIR: b.g.app.container.cradle.config.dataDir, ...env };
      const created = await cli(
        [
          'widgets',
          'create',
          '--org',
          shop.organizationId,
          '--store',
          shop.storeId,
          '--mode',
          'room-visualizer',
          '--origin',
          'https://cli.example',
          '--origin',
          'http://localhost:8080',
          '--image-size',
          '4K',
          '--daily-cap',
          '25',
          '--daily-credit-cap',
          '60',
          '--json',
        ],
        cliEnv,
      );
      assert.equal(created.code, 0, created.stderr);
      const printed = JSON.parse(created.stdout);
      assert.match(printed.widgetId, /^wdg_/);
      assert.deepEqual(
        [printed.mode, printed.imageSize, printed.dailyGenerationCap, printed.dailyCreditCap, printed.allowedOrigins],
        ['room-visualizer', '4K', 25, 60, ['https://cli.example', 'http://localhost:8080']],
      );
      const viaApi = await (await b.v1(shop.apiKey, `/v1/widgets/${printed.widgetId}`)).json();
      assert.equal(viaApi.storeId, shop.storeId, 'the running server sees it');

      const listed = await cli(['widgets', 'list', '--org', shop.organizationId, '--json'], cliEnv);
      assert.equal(listed.code, 0, listed.stderr);
      assert.ok(JSON.parse(listed.stdout).some((item: { id: string }) => item.id === printed.widgetId));
      const table = await cli(['widgets', 'list', '--org', shop.organizationId], cliEnv);
      assert.match(table.stdout, new RegExp(`${printed.widgetId}.*room-visualizer.*4K +25 +60 `));
      assert.match(table.stdout, /dailyCreditCap/);
      assert.match(table.stdout, new RegExp(`${widget.id}.* none `), 'a widget without a credit cap');
      const belowOne = await cli(
        [
          'widgets',
          'create',
          '--org',
          shop.organizationId,
          '--store',
          shop.storeId,
          '--mode',
          'virtual-try-on',
          '--origin',
          shopOrigin,
          '--image-size',
          '4K',
          '--daily-credit-cap',
          '2',
        ],
        cliEnv,
      );
      assert.equal(belowOne.code, 2);
      assert.match(belowOne.stderr, /--daily-credit-cap: must be at least 3, the cost of one 4K generation/);

      const badMode = await cli(
        [
          'widgets',
          'create',
          '--org',
          shop.organizationId,
          '--store',
          shop.storeId,
          '--mode',
          'x-ray',
          '--origin',
          shopOrigin,
        ],
        cliEnv,
      );
      assert.equal(badMode.code, 2);
      assert.match(badMode.stderr, /--mode/);
      const badOrigin = await cli(
        [
          'widgets',
          'create',
          '--org',
          shop.organizationId,
          '--store',
          shop.storeId,
          '--mode',
          'virtual-try-on',
          '--origin',
          'https://shop.example/path',
        ],
        cliEnv,
      );
      assert.equal(badOrigin.code, 2);
      assert.match(badOrigin.stderr, /--origin/);
      const noOrigin = await cli(
        ['widgets', 'create', '--org', shop.organizationId, '--store', shop.storeId, '--mode', 'virtual-try-on'],
        cliEnv,
      );
      assert.equal(noOrigin.code, 2);
      const unknownOrg = await cli(
        [
          'widgets',
          'create',
          '--org',
          'org_nope',
          '--store',
          shop.storeId,
          '--mode',
          'virtual-try-on',
          '--origin',
          shopOrigin,
        ],
        cliEnv,
      );
      assert.equal(unknownOrg.code, 1);
      assert.match(unknownOrg.stderr, /organization/);
      const foreignStore = await cli(
        [
          'widgets',
          'create',
          '--org',
          shop.organizationId,
          '--store',
          other.storeId,
          '--mode',
          'virtual-try-on',
          '--origin',
          shopOrigin,
        ],
        cliEnv,
      );
      assert.equal(foreignStore.code, 1);
      assert.match(foreignStore.stderr, /store/);
    });

    it('shows the widget to its allowed origins only', async () => {
      const response = await keyless(`/api/widgets/${widget.id}`);
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), {
        id: widget.id,
        object: 'widget',
        mode: 'virtual-try-on',
        imageSize: '2K',
      });
      assert.equal(response.headers.get('access-control-allow-origin'), shopOrigin);
      assert.match(response.headers.get('vary') ?? '', /Origin/);
      const local = await keyless(`/api/widgets/${widget.id}`, { origin: 'http://localhost:3000' });
      assert.equal(local.headers.get('access-control-allow-origin'), 'http://localhost:3000');

      for (const origin of ['https://evil.example', 'http://shop.example', 'null', null]) {
        const refused = await keyless(`/api/widgets/${widget.id}`, { origin });
        assert.equal(refused.headers.get('access-control-allow-origin'), null, 'no CORS grant for others');
        const error = await errorOf(refused, 403);
        assert.deepEqual([error.type, error.code], ['authorization_error', 'origin_not_allowed'], String(origin));
      }
      const generation = await b.widgetGeneration(widget.id, b.widgetBody('v-evil', 's-evil'), 'https://evil.example');
      assert.equal((await errorOf(generation, 403)).code, 'origin_not_allowed');
      assert.equal(
        (await errorOf(await b.widgetGeneration(widget.id, b.widgetBody('v-none', 's-none'), null), 403)).code,
        'origin_not_allowed',
      );
      // Any page may read that a widget does not exist, so the widget can say so rather than fail on CORS.
      const unknown = await keyless('/api/widgets/wdg_unknown');
      assert.equal(unknown.headers.get('access-control-allow-origin'), '*');
      assert.equal((await errorOf(unknown, 404)).param, 'widgetId');
      const unknownPreflight = await keyless('/api/widgets/wdg_unknown/generations', {
        method: 'OPTIONS',
        origin: 'https://evil.example',
        headers: { 'access-control-request-method': 'POST' },
      });
      assert.equal(unknownPreflight.headers.get('access-control-allow-origin'), '*');
      assert.equal((await errorOf(unknownPreflight, 404)).code, 'resource_missing');
    });

    it('answers CORS preflights for allowed origins', async () => {
      for (const path of [
        `/api/widgets/${widget.id}`,
        `/api/widgets/${widget.id}/generations`,
        `/api/widgets/${widget.id}/generations/agen_x`,
      ]) {
        const response = await keyless(path, {
          method: 'OPTIONS',
          headers: { 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
        });
        assert.equal(response.status, 204, path);
        assert.equal(response.headers.get('access-control-allow-origin'), shopOrigin);
        assert.match(response.headers.get('access-control-allow-methods')!, /GET, POST/);
        assert.match(response.headers.get('access-control-allow-headers')!, /content-type/);
        assert.match(response.headers.get('vary')!, /Origin/);
      }
      const refused = await keyless(`/api/widgets/${widget.id}/generations`, {
        method: 'OPTIONS',
        origin: 'https://evil.example',
        headers: { 'access-control-request-method': 'POST' },
      });
      assert.equal(refused.headers.get('access-control-allow-origin'), null);
      assert.equal((await errorOf(refused, 403)).code, 'origin_not_allowed');
    });

    it('creates a keyless generation for a visitor: recorded, charged, rendered, and announced by webhook', async () => {
      const endpoint = await (
        await b.v1(shop.apiKey, '/v1/webhook-endpoints', {
          body: { url: `${receiver.url}/hooks`, enabledEvents: ['generation.completed'] },
        })
      ).json();
      assert.match(endpoint.id, /^whe_/);
      const before = await balance();
      const response = await b.widgetGeneration(
        widget.id,
        b.widgetBody('visitor-1', 'session-1', ['sku-1', 7], { hint: 'summer look' }),
      );
      assert.equal(response.status, 202);
      assert.equal(response.headers.get('access-control-allow-origin'), shopOrigin);
      const accepted = await response.json();
      assert.match(accepted.id, /^agen_/);
      assert.deepEqual(
        [accepted.object, accepted.status, accepted.mode, accepted.imageSize, accepted.hint, accepted.metadata],
        ['generation', 'processing', 'virtual-try-on', '2K', 'summer look', null],
      );
      assert.equal(await balance(), before - 2, "a 2K widget's generation costs the organization 2 credits");

      const done = await b.settledForVisitor(widget.id, accepted.id, 'visitor-1');
      assert.equal(done.status, 'complete', JSON.stringify(done.error));
      assert.ok(done.imageVariants.detail.url);
      const viaApi = await (await b.v1(shop.apiKey, `/v1/generations/${accepted.id}`)).json();
      assert.deepEqual(viaApi, done, 'the same generation the API shows');

      const stored = await b.g.app.container.cradle.persistence.generations.get(shop.organizationId, accepted.id);
      assert.deepEqual(
        [stored?.widgetId, stored?.storeId, stored?.visitorId, stored?.sessionId, stored?.apiKeyId],
        [widget.id, shop.storeId, 'visitor-1', 'session-1', null],
      );
      assert.deepEqual(
        stored?.products.map((product) => product.productId),
        ['sku-1', 7],
      );

      const events = await (await b.v1(shop.apiKey, '/v1/events?type=generation.completed&limit=100')).json();
      const event = events.data.find((item: { data: { id: string } }) => item.data.id === accepted.id);
      assert.ok(event, 'generation.completed is in the outbox');
      const deadline = Date.now() + 10_000;
      while (!receiver.requests.some((request) => String(request.headers['webhook-id']) === event.id)) {
        assert.ok(Date.now() < deadline, 'the webhook was delivered');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    });

    it('takes an uploaded photo and refuses invalid requests, naming the field', async () => {
      const upload = await b.widgetGeneration(
        widget.id,
        b.widgetBody('visitor-up', 'session-up', ['sku-1'], {
          image: `data:image/jpeg;base64,${photoJpeg.toString('base64')}`,
        }),
      );
      assert.equal(upload.status, 202, await upload.clone().text());
      const done = await b.settledForVisitor(widget.id, (await upload.json()).id, 'visitor-up');
      assert.equal(done.status, 'complete');

      const valid = b.widgetBody('visitor-bad', 'session-bad');
      const { visitorId: _visitorId, ...withoutVisitor } = valid;
      const cases: Array<[unknown, string]> = [
        [withoutVisitor, 'visitorId'],
        [{ ...valid, sessionId: '' }, 'sessionId'],
        [{ ...valid, visitorId: 'v'.repeat(129) }, 'visitorId'],
        [{ ...valid, products: [] }, 'products'],
        [
          { ...valid, products: [...valid.products, ...valid.products, ...valid.products, ...valid.products] },
          'products',
        ],
        [
          { ...valid, products: [{ ...valid.products[0], imageUrl: 'http://x.example/a.png' }] },
          'products[0].imageUrl',
        ],
        [{ ...valid, image: 'http://x.example/a.jpg' }, 'image'],
        [{ ...valid, mode: 'room-visualizer' }, 'mode'],
        [{ ...valid, imageSize: '4K' }, 'imageSize'],
      ];
      const before = await balance();
      for (const [body, param] of cases) {
        const response = await b.widgetGeneration(widget.id, body);
        assert.equal(
          response.headers.get('access-control-allow-origin'),
          shopOrigin,
          'errors are readable by the page',
        );
        assert.equal((await errorOf(response, 400)).param, param, JSON.stringify(body).slice(0, 100));
      }
      assert.equal(await balance(), before, 'nothing refused was charged');
      const plain = await fetch(b.url(`/api/widgets/${widget.id}/generations`), {
        method: 'POST',
        headers: { origin: shopOrigin, 'content-type': 'text/plain' },
        body: JSON.stringify(valid),
      });
      assert.equal(plain.status, 415);
    });

    it('shows a generation only to the visitor it was made for, through its widget', async () => {
      const mine = await b.visualize(widget.id, 'visitor-own', 'session-own');
      assert.equal(
        (await keyless(`/api/widgets/${widget.id}/generations/${mine.id}?visitorId=visitor-own`)).status,
        200,
      );
      assert.equal(
        (await errorOf(await keyless(`/api/widgets/${widget.id}/generations/${mine.id}?visitorId=visitor-other`), 404))
          .type,
        'not_found_error',
      );
      assert.equal(
        (await errorOf(await keyless(`/api/widgets/${widget.id}/generations/${mine.id}`), 400)).param,
        'visitorId',
      );
      const otherWidget = await b.createWidget(shop.apiKey, { storeId: shop.storeId });
      assert.equal(
        (await keyless(`/api/widgets/${otherWidget.id}/generations/${mine.id}?visitorId=visitor-own`)).status,
        404,
        'not through another widget',
      );
      const { id: apiGeneration } = await (await b.g.api.post(shop.apiKey, b.g.validBody())).json();
      assert.equal(
        (await keyless(`/api/widgets/${widget.id}/generations/${apiGeneration}?visitorId=visitor-own`)).status,
        404,
        'never an API-made generation',
      );
      assert.equal(
        (
          await keyless(`/api/widgets/${widget.id}/generations/${mine.id}?visitorId=visitor-own`, {
            origin: 'https://evil.example',
          })
        ).status,
        403,
      );
    });

    it("stops at the widget's daily cap until midnight UTC, and at the organization's credits", async () => {
      const capped = await b.createWidget(shop.apiKey, { storeId: shop.storeId, dailyGenerationCap: 2 });
      try {
        b.setClockOffset(-day); // yesterday's generations do not count today
        for (let i = 0; i < 2; i++)
          assert.equal((await b.widgetGeneration(capped.id, b.widgetBody(`cap-old-${i}`, 's'))).status, 202);
        assert.equal(
          (await errorOf(await b.widgetGeneration(capped.id, b.widgetBody('cap-old-x', 's')), 429)).code,
          'daily_cap_reached',
        );
      } finally {
        b.setClockOffset(0);
      }
      for (let i = 0; i < 2; i++)
        assert.equal((await b.widgetGeneration(capped.id, b.widgetBody(`cap-${i}`, 's'))).status, 202);
      const before = await balance();
      const limited = await b.widgetGeneration(capped.id, b.widgetBody('cap-x', 's'));
      const retryAfter = Number(limited.headers.get('retry-after'));
      const untilMidnight = (day - (Date.now() % day)) / 1000;
      assert.ok(
        retryAfter >= 1 && Math.abs(retryAfter - untilMidnight) < 120,
        `Retry-After ${retryAfter} is the time to midnight UTC (${untilMidnight})`,
      );
      assert.equal(limited.headers.get('access-control-allow-origin'), shopOrigin);
      const error = await errorOf(limited, 429);
      assert.deepEqual([error.type, error.code], ['rate_limit_error', 'daily_cap_reached']);
      assert.equal(await balance(), before, 'nothing charged');

      const poor = await b.organization('Poor', 0);
      const poorWidget = await b.createWidget(poor.apiKey, { storeId: poor.storeId });
      const broke = await errorOf(await b.widgetGeneration(poorWidget.id, b.widgetBody('v-poor', 's-poor')), 403);
      assert.deepEqual([broke.type, broke.code], ['authorization_error', 'insufficient_credits']);
    });

    it("stops at the widget's daily credit cap, counting credits spent: a failed generation's refund gives them back", async () => {
      const usage = async (id: string) =>
        (await (await b.v1(shop.apiKey, `/v1/widgets/${id}`)).json()).usageToday as {
          date: string;
          generations: number;
          credits: number;
        };
      // 2 credits a generation (2K): a cap of 5 fits two of them, never a third.
      const capped = await b.createWidget(shop.apiKey, { storeId: shop.storeId, imageSize: '2K', dailyCreditCap: 5 });
      assert.equal((capped as unknown as { dailyCreditCap: number }).dailyCreditCap, 5);
      try {
        b.setClockOffset(-day); // yesterday's credits do not count today
        for (let i = 0; i < 2; i++)
          assert.equal((await b.widgetGeneration(capped.id, b.widgetBody(`credit-old-${i}`, 's'))).status, 202);
        assert.equal(
          (await errorOf(await b.widgetGeneration(capped.id, b.widgetBody('credit-old-x', 's')), 429)).code,
          'daily_credit_cap_reached',
        );
      } finally {
        b.setClockOffset(0);
      }
      assert.deepEqual(await usage(capped.id), {
        date: new Date().toISOString().slice(0, 10),
        generations: 0,
        credits: 0,
      });

      assert.equal((await b.widgetGeneration(capped.id, b.widgetBody('credit-1', 's'))).status, 202);
      const failing = await b.widgetGeneration(
        capped.id,
        b.widgetBody('credit-fail', 's', ['sku-1'], { image: `${b.g.host.url}/missing` }),
      );
      assert.equal(failing.status, 202);
      assert.equal((await b.settledForVisitor(capped.id, (await failing.json()).id, 'credit-fail')).status, 'failed');
      assert.deepEqual(
        await usage(capped.id),
        { date: new Date().toISOString().slice(0, 10), generations: 2, credits: 2 },
        'the failed generation was made, but its credits were refunded: not spent',
      );

      assert.equal(
        (await b.widgetGeneration(capped.id, b.widgetBody('credit-2', 's'))).status,
        202,
        'the refunded credits are spent again',
      );
      const before = await balance();
      const limited = await b.widgetGeneration(capped.id, b.widgetBody('credit-x', 's'));
      const retryAfter = Number(limited.headers.get('retry-after'));
      const untilMidnight = (day - (Date.now() % day)) / 1000;
      assert.ok(
        retryAfter >= 1 && Math.abs(retryAfter - untilMidnight) < 120,
        `Retry-After ${retryAfter} is the time to midnight UTC (${untilMidnight})`,
      );
      assert.equal(limited.headers.get('access-control-allow-origin'), shopOrigin, 'the page can read why');
      const error = await errorOf(limited, 429);
      assert.deepEqual([error.type, error.code, error.param], ['rate_limit_error', 'daily_credit_cap_reached', null]);
      assert.match(error.message, /daily credit cap/);
      assert.doesNotMatch(error.message, /\d/, "the shop's budget is not told to shoppers' browsers");
      assert.equal(await balance(), before, 'nothing charged');
      assert.deepEqual(
        await usage(capped.id),
        { date: new Date().toISOString().slice(0, 10), generations: 3, credits: 4 },
        'a refused generation is not counted',
      );

      // Changing the cap applies to what today already spent.
      const patch = (body: unknown) =>
        fetch(b.url(`/v1/widgets/${capped.id}`), {
          method: 'PATCH',
          headers: { authorization: `Bearer ${shop.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const raised = await (await patch({ dailyCreditCap: 6 })).json();
      assert.deepEqual([raised.dailyCreditCap, raised.usageToday.credits], [6, 4]);
      assert.equal((await b.widgetGeneration(capped.id, b.widgetBody('credit-3', 's'))).status, 202);
      assert.equal(
        (await errorOf(await b.widgetGeneration(capped.id, b.widgetBody('credit-4', 's')), 429)).code,
        'daily_credit_cap_reached',
      );
      assert.equal(
        (await errorOf(await patch({ dailyCreditCap: 1 }), 400)).param,
        'dailyCreditCap',
        "below one 2K generation's cost",
      );
      assert.equal(
        (await (await patch({ dailyCreditCap: 2 })).json()).dailyCreditCap,
        2,
        "exactly one 2K generation's cost",
      );
      assert.equal(
        (await errorOf(await patch({ imageSize: '4K' }), 400)).param,
        'dailyCreditCap',
        'a size the cap cannot pay for once',
      );
      assert.equal((await errorOf(await patch({ dailyCreditCap: 0 }), 400)).param, 'dailyCreditCap');
      assert.equal(
        (await (await patch({ imageSize: '4K', dailyCreditCap: 9 })).json()).dailyCreditCap,
        9,
        'both at once',
      );
      const lifted = await (await patch({ dailyCreditCap: null, imageSize: '2K' })).json();
      assert.equal(lifted.dailyCreditCap, null, 'null removes the cap');
      assert.equal((await b.widgetGeneration(capped.id, b.widgetBody('credit-5', 's'))).status, 202);
      const listed = (await (await b.v1(shop.apiKey, '/v1/widgets?limit=100')).json()).data.find(
        (item: { id: string }) => item.id === capped.id,
      );
      assert.deepEqual(
        listed.usageToday,
        { date: new Date().toISOString().slice(0, 10), generations: 5, credits: 8 },
        "the list shows today's use too",
      );
    });

    it("gives a widget generation deleted while processing back to the widget's day", async () => {
      const usage = async (id: string) =>
        (await (await b.v1(shop.apiKey, `/v1/widgets/${id}`)).json()).usageToday as {
          generations: number;
          credits: number;
        };
      const widget = await b.createWidget(shop.apiKey, { storeId: shop.storeId, imageSize: '1K', dailyCreditCap: 3 });
      const { renderer } = b.g.app.container.cradle;
      const render = renderer.render;
      let started!: () => void;
      const rendering = new Promise<void>((resolve) => (started = resolve));
      let finish!: () => void;
      const held = new Promise<void>((resolve) => (finish = resolve));
      renderer.render = async (request) => {
        started();
        await held;
        return render.call(renderer, request);
      };
      try {
        const created = await b.widgetGeneration(widget.id, b.widgetBody('deleted-while-rendering', 's'));
        assert.equal(created.status, 202);
        await rendering;
        assert.deepEqual(await usage(widget.id), {
          date: new Date().toISOString().slice(0, 10),
          generations: 1,
          credits: 1,
        });
        const removed = await fetch(b.url(`/v1/generations/${(await created.json()).id}`), {
          method: 'DELETE',
          headers: { authorization: `Bearer ${shop.apiKey}` },
        });
        assert.equal(removed.status, 200);
        assert.deepEqual(
          await usage(widget.id),
          { date: new Date().toISOString().slice(0, 10), generations: 1, credits: 0 },
          'refunded to the widget too',
        );
      } finally {
        renderer.render = render;
        finish();
      }
    });

    it('lets exactly what fits under the credit cap through when requests race at its edge', async () => {
      const racing = await b.createWidget(shop.apiKey, { storeId: shop.storeId, imageSize: '1K', dailyCreditCap: 4 });
      const before = await balance();
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, i) => b.widgetGeneration(racing.id, b.widgetBody(`race-${i}`, 's'))),
      );
      const statuses = await Promise.all(
        responses.map(async (response) =>
          response.status === 202 ? 202 : `${response.status} ${(await response.json()).error.code}`,
        ),
      );
      assert.equal(statuses.filter((status) => status === 202).length, 4, statuses.join(', '));
      assert.deepEqual(
        statuses.filter((status) => status !== 202),
        Array(6).fill('429 daily_credit_cap_reached'),
      );
      assert.equal(await balance(), before - 4, 'only the four admitted were charged');
    });
  });
}

describe('widget rate limits', () => {
  let b: BrowserApp;
  before(async () => {
    b = await startBrowserApp({
      config: {
        widgets: {
          generationsPerVisitor: { perSecond: 0.01, burst: 2 },
          generationsPerIp: { perSecond: 0.01, burst: 4 },
          readsPerIp: { perSecond: 0.01, burst: 3 },
        },
      },
    });
  });
  after(() => b.close());

  it('answers a flood with 429 and Retry-After, per visitor and per address', async () => {
    const shop = await b.organization('Flooded', 20);
    const widget = await b.createWidget(shop.apiKey, { storeId: shop.storeId });
    for (let i = 0; i < 2; i++)
      assert.equal((await b.widgetGeneration(widget.id, b.widgetBody('flooder', 's'))).status, 202);
    const limited = await b.widgetGeneration(widget.id, b.widgetBody('flooder', 's'));
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.equal(limited.headers.get('access-control-allow-origin'), shopOrigin);
    const error = await errorOf(limited, 429);
    assert.deepEqual([error.type, error.code], ['rate_limit_error', 'rate_limited']);
    assert.match(error.message, /visitor/);

    assert.equal(
      (await b.widgetGeneration(widget.id, b.widgetBody('calm', 's'))).status,
      202,
      'another visitor has a budget of its own',
    );
    const byAddress = await errorOf(await b.widgetGeneration(widget.id, b.widgetBody('calm-2', 's')), 429);
    assert.match(byAddress.message, /address/, 'until the address runs out (4 per burst here)');

    for (let i = 0; i < 3; i++)
      assert.equal((await fetch(b.url(`/api/widgets/${widget.id}`), { headers: { origin: shopOrigin } })).status, 200);
    assert.equal(
      (await fetch(b.url(`/api/widgets/${widget.id}`), { headers: { origin: shopOrigin } })).status,
      429,
      'reads have their own limit',
    );
  });
});
