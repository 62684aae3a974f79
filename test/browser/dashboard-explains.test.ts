import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, recordPageErrors } from '../support/browser.ts';
import { acceptInvitation, openSection, startDashboardApp, type DashboardApp } from '../support/dashboard.ts';

/**
 * The Overview, Stores & widgets and Conversions pages say what they count and what to do next, on
 * a fresh organization: the empty states point to the next step, an admin creates and edits a
 * widget from the page, a viewer cannot, and the overview's figures are labelled. One app and one
 * browser; the admin and the viewer are a context each.
 */

const stores = { link: 'Stores & widgets', heading: 'Stores & widgets' };
const conversions = { link: 'Conversions', heading: 'Conversions' };
const overview = { link: 'Overview', heading: 'Overview' };

describe('dashboard pages that explain themselves', () => {
  let browser: Browser;
  let app: DashboardApp;
  let shop: Awaited<ReturnType<DashboardApp['cliOrganization']>>;
  const contexts: BrowserContext[] = [];
  let admin: Page;
  let adminErrors: string[];
  let widgetId: string;

  const signIn = async (invitationUrl: string) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    const errors = recordPageErrors(context);
    const page = await context.newPage();
    await acceptInvitation(page, invitationUrl);
    return { page, errors };
  };
  const widgetOnServer = async (id: string) => {
    const response = await app.v1(shop.apiKey, `/v1/widgets/${id}`);
    assert.equal(response.status, 200, await response.clone().text());
    return response.json();
  };

  before(async () => {
    browser = await launchChromium();
    app = await startDashboardApp({ env: {} });
    shop = await app.cliOrganization('Fresh Goods', 'owner@fresh.example');
    ({ page: admin, errors: adminErrors } = await signIn(shop.invitationUrl));
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await app?.close();
  });

  it('an admin with no widgets sees what a widget is for and a control to create one', async () => {
    await openSection(admin, stores);
    const section = admin.getByRole('region', { name: 'Widgets' });
    await section.getByText('No widgets yet. Create one for a store below').waitFor();
    await section.getByText('A widget lets shoppers').waitFor();
    assert.equal(
      await section.getByRole('link', { name: 'the browser SDK in the API reference' }).getAttribute('href'),
      '../docs#/Browser%20SDK',
    );
    await section.getByRole('button', { name: 'Create a widget' }).waitFor();
  });

  it("refuses a bad origin with the server's message (no 500), then creates the widget and shows its snippet", async () => {
    const statuses: number[] = [];
    admin.on('response', (response) => {
      if (new URL(response.url()).pathname === '/v1/widgets' && response.request().method() === 'POST')
        statuses.push(response.status());
    });
    await admin.getByRole('button', { name: 'Create a widget' }).click();
    const form = admin.getByRole('form', { name: 'Create a widget' });
    assert.equal(await form.getByLabel(/^Store/).inputValue(), shop.storeId);
    await form.getByLabel(/^Mode/).selectOption('room-visualizer');
    await form.getByLabel(/^Image size/).selectOption('2K');
    await form.getByLabel(/^Allowed origins/).fill('https://shop.example\nshop.example/checkout');
    await form.getByLabel(/^Daily generation cap/).fill('40');
    await form.getByLabel(/^Daily credit cap/).fill('60');
    await form.getByRole('button', { name: 'Create widget' }).click();
    await form.getByRole('alert').filter({ hasText: 'must be an origin' }).waitFor();
    assert.deepEqual(statuses, [400]);
    const listed = await (await app.v1(shop.apiKey, '/v1/widgets')).json();
    assert.deepEqual(listed.data, [], 'nothing created');

    await form.getByLabel(/^Allowed origins/).fill('https://shop.example\nhttp://localhost:8000');
    await form.getByRole('button', { name: 'Create widget' }).click();
    await form.waitFor({ state: 'detached' });
    assert.deepEqual(statuses, [400, 201]);
    const created = (await (await app.v1(shop.apiKey, '/v1/widgets')).json()).data;
    assert.equal(created.length, 1);
    widgetId = created[0].id;
    assert.deepEqual(await widgetOnServer(widgetId), {
      ...created[0],
      storeId: shop.storeId,
      mode: 'room-visualizer',
      imageSize: '2K',
      allowedOrigins: ['https://shop.example', 'http://localhost:8000'],
      dailyGenerationCap: 40,
      dailyCreditCap: 60,
    });

    // Listed with its snippet open, and the empty state gone.
    const snippet = admin.getByLabel(`Embed snippet of ${widgetId}`);
    await snippet.waitFor();
    const text = await snippet.innerText();
    assert.ok(text.includes(widgetId) && text.includes(shop.storeId) && text.includes('/widgets/embed.js'), text);
    const row = admin
      .getByRole('listitem')
      .filter({ has: admin.getByRole('heading', { level: 3, name: new RegExp(widgetId) }) });
    await row.getByText('40 generations, 60 credits').waitFor();
    await row.getByText('0 of 40 generations, 0 of 60 credits').waitFor();
    assert.equal(await admin.getByText('No widgets yet.').count(), 0);
  });

  it('edits the widget with the same form', async () => {
    const row = admin
      .getByRole('listitem')
      .filter({ has: admin.getByRole('heading', { level: 3, name: new RegExp(widgetId) }) });
    await row.getByRole('button', { name: 'Edit widget' }).click();
    const form = admin.getByRole('form', { name: `Edit ${widgetId}` });
    assert.equal(await form.getByLabel(/^Store/).count(), 0, "a widget's store stays");
    assert.equal(await form.getByLabel(/^Daily generation cap/).inputValue(), '40');
    await form.getByLabel(/^Daily generation cap/).fill('75');
    await form.getByLabel(/^Daily credit cap/).fill('');
    await form.getByRole('button', { name: 'Save widget' }).click();
    await row.getByText('75 generations, no credit cap').waitFor();
    const saved = await widgetOnServer(widgetId);
    assert.equal(saved.dailyGenerationCap, 75);
    assert.equal(saved.dailyCreditCap, null);
    assert.equal(saved.mode, 'room-visualizer', 'unchanged fields kept');
    assert.deepEqual(
      adminErrors.filter((error) => !error.includes('400')),
      [],
    );
  });

  it("a viewer sees no create control; the conversions' empty state links to the keys and the docs", async () => {
    const { page, errors } = await signIn(await app.cliInvite(shop.organizationId, 'viewer@fresh.example', 'viewer'));
    await openSection(page, stores);
    await page.getByLabel(`Embed snippet of ${widgetId}`).waitFor({ state: 'attached' });
    assert.equal(await page.getByRole('button', { name: 'Create a widget' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Edit widget' }).count(), 0);

    await openSection(page, conversions);
    const empty = page.getByRole('region', { name: 'How orders get here' });
    await empty.getByText('No orders reported yet.').waitFor();
    await empty.getByText('POST /api/webhooks/orders').waitFor();
    await empty.getByText("Visualizer.track('$conversion', …)").waitFor();
    assert.equal(
      await empty.getByRole('link', { name: 'Reporting orders in the API reference' }).getAttribute('href'),
      '../docs#/Conversions',
    );
    await empty.getByRole('link', { name: 'API keys on the Developers page' }).click();
    await page.getByRole('heading', { level: 1, name: 'Developers' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'API keys' }).waitFor();
    assert.deepEqual(errors, []);
  });

  it('the docs links name sections the API reference has (Swagger UI opens `#/{tag}`)', async () => {
    const document = await (await fetch(`${app.base}/openapi.json`)).json();
    const tags = document.tags.map((tag: { name: string }) => tag.name);
    assert.ok(tags.includes('Conversions') && tags.includes('Browser SDK'), tags.join(', '));
  });

  it('the overview says what its summary counts, and the legends show totals without hovering', async () => {
    // One generation through the widget (the store's), one by API (no store's).
    await app.visualize(widgetId, 'v-explained', 's-explained');
    const byApi = await (await app.g.api.post(shop.apiKey, app.g.validBody())).json();
    assert.equal((await app.g.api.settled(shop.apiKey, byApi.id)).status, 'complete');

    await openSection(admin, overview);
    const summary = admin.getByRole('region', { name: "One store's widgets and orders" });
    await summary.getByText('Generations created through the API with a secret key belong to no store').waitFor();
    const card = summary.locator('.cards > div').filter({ hasText: 'Widget visualizations in this store' });
    assert.equal(await card.locator('dd').first().innerText(), '1', 'the widget generation only');

    const chart = admin.getByRole('figure', { name: 'Generations per day by status' });
    await chart.locator('canvas').waitFor();
    const legend = async () =>
      chart
        .locator('.u-legend .u-series')
        .evaluateAll((rows) =>
          rows.map((row) => [
            row.querySelector('.u-label')?.textContent ?? '',
            row.querySelector('.u-value')?.textContent ?? '',
          ]),
        );
    assert.deepEqual(await legend(), [
      ['Day', 'total of 30 days'],
      ['Complete', '2'],
      ['Failed', '0'],
      ['Processing', '0'],
    ]);
    // Pointing at the chart shows a day; leaving it brings the totals back.
    const over = chart.locator('.u-over');
    const box = (await over.boundingBox())!;
    await over.hover({ position: { x: box.width - 2, y: box.height / 2 } });
    const today = new Date().toISOString().slice(0, 10);
    await admin.waitForFunction(
      (day) => document.querySelector('figure .u-legend .u-value')?.textContent === day,
      today,
    );
    await admin.mouse.move(0, 0);
    await admin.waitForFunction(
      () => document.querySelector('figure .u-legend .u-value')?.textContent === 'total of 30 days',
    );
    assert.equal((await legend()).flat().filter((cell) => cell.includes('—')).length, 0);
  });
});
