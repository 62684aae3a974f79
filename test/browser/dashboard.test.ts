import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, recordPageErrors } from '../support/browser.ts';
import { errorOf } from '../support/databases.ts';
import {
  acceptInvitation,
  dashboardPages,
  openSection,
  recordOtherOrigins,
  settled,
  startDashboardApp,
  startWebhookReceiver,
  type DashboardApp,
} from '../support/dashboard.ts';
import type { TestHttpsServer } from '../support/https-server.ts';
import { waitFor } from '../support/wait-for.ts';

/**
 * Real Chromium drives the dashboard against a real server: the flows a shop goes through, from the
 * operator's invitation to signing out. One browser for the file; each person is a context of their
 * own (their own cookie jar). On SQLite only: every query the pages make goes through repository
 * methods whose persistence contract runs on SQLite and Postgres alike, and this flow on both took
 * over three minutes of CI a run.
 */

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

/** A person at their browser: the page, and what it logged and tried to reach elsewhere. */
interface Person {
  context: BrowserContext;
  page: Page;
  errors: string[];
  elsewhere: string[];
}

async function person(app: DashboardApp): Promise<Person> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const errors = recordPageErrors(context);
  const elsewhere = await recordOtherOrigins(context, app.base);
  return { context, page: await context.newPage(), errors, elsewhere };
}

/** A request made by the page's own JavaScript, as a script would make it without the UI (same cookie, same origin). */
function fromPage(page: Page, method: string, path: string, body?: unknown) {
  return page.evaluate(
    async ({ method, path, body }) => {
      const session = await (await fetch('../v1/session')).json();
      const response = await fetch(`..${path}`, {
        method,
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrfToken },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    },
    { method, path, body },
  );
}

describe('the dashboard in Chromium', () => {
  let app: DashboardApp;
  let receiver: TestHttpsServer;
  let shop: Awaited<ReturnType<DashboardApp['cliOrganization']>>;
  let admin: Person;
  let secretKey: string;
  let generationId: string;
  const people: Person[] = [];

  before(async () => {
    receiver = await startWebhookReceiver();
    app = await startDashboardApp({ env: {} });
    shop = await app.cliOrganization('Acme Outfitters', 'owner@acme.example');
    admin = await person(app);
    people.push(admin);
  });
  after(async () => {
    for (const { context } of people) await context.close();
    await app?.close();
    await receiver?.close();
  });

  it('the operator invites an admin with `visualizer orgs create --admin-email`; the link sets a password and signs in on the overview', async () => {
    assert.match(shop.invitationUrl, new RegExp(`^${app.base}/dashboard/#/accept-invitation\\?token=\\w+$`));
    await acceptInvitation(admin.page, shop.invitationUrl);
    assert.equal(new URL(admin.page.url()).hash, '#/overview', 'the token left the address bar');
    await admin.page.getByRole('banner').getByText('owner@acme.example').waitFor();
    const cookies = await admin.context.cookies();
    const session = cookies.find((cookie) => cookie.name === 'visualizer_session');
    assert.ok(session?.httpOnly, 'an HttpOnly session cookie');
    assert.equal(session.sameSite, 'Lax');
    // The link works once.
    const again = await app.g.app.container.cradle.accounts
      .acceptInvitation(
        {
          token: new URL(shop.invitationUrl.replace('#/', '')).searchParams.get('token')!,
          password: 'another long password',
        },
        { userAgent: null, ipAddress: null },
      )
      .then(
        () => 'accepted',
        (error: { code?: string }) => error.code,
      );
    assert.equal(again, 'invalid_link');
  });

  it('creates a secret key on the Developers page, shows it once, and a server uses it for a generation', async () => {
    const { page } = admin;
    await openSection(page, { link: 'Developers', heading: 'Developers' });
    const form = page.getByRole('form', { name: 'Create a key' });
    await form.getByLabel('Kind').selectOption('secret');
    await form.getByLabel('Name').fill('Checkout server');
    await form.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('region', { name: 'Your new key' });
    secretKey = (await shown.locator('code').innerText()).trim();
    assert.match(secretKey, /^\S{24,}$/);
    const row = page.getByRole('row').filter({ hasText: 'Checkout server' });
    await row.waitFor();
    assert.equal(await row.getByText(secretKey).count(), 0, 'the list shows only a prefix');
    await shown.getByRole('button', { name: 'Done' }).click();
    await shown.waitFor({ state: 'detached' });
    assert.equal(await page.getByText(secretKey).count(), 0, 'shown once: gone after Done');

    const response = await app.g.api.post(
      secretKey,
      app.g.validBody({ metadata: { order: 'from-the-dashboard-key' } }),
    );
    const text = await response.text();
    assert.equal(response.status, 202, text);
    generationId = JSON.parse(text).id;
    const done = await app.g.api.settled(secretKey, generationId);
    assert.equal(done.status, 'complete');
    assert.equal(done.metadata.order, 'from-the-dashboard-key');

    // The key's row says it was used.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Developers' }).waitFor();
    await settled(page);
    assert.notEqual(
      (await page.getByRole('row').filter({ hasText: 'Checkout server' }).innerText()).includes('never'),
      true,
      'last used is set',
    );
  });

  it('creates a webhook endpoint in the UI; a delivery to a real HTTPS receiver shows with its attempt; resend delivers again', async () => {
    const { page } = admin;
    const endpointUrl = `${receiver.url}/hooks/acme`;
    await page.getByRole('button', { name: 'Add an endpoint' }).click();
    // A local receiver is refused by the server; the form says how to get events locally instead.
    assert.match(await page.locator('#endpoint-url-hint').innerText(), /npx visualizer listen --forward-to/);
    const errorsBefore = admin.errors.length;
    await page.getByLabel('URL').fill('http://localhost:4000/webhooks');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await page.getByRole('alert').waitFor();
    assert.match(
      await page.locator('.listen-hint').innerText(),
      /To receive events locally, run VISUALIZER_API_KEY=\S+ npx visualizer listen --forward-to http:\/\/localhost/,
    );
    const refused = admin.errors.splice(errorsBefore);
    assert.ok(
      refused.every((text) => /status of 400/.test(text)),
      `only the refused request is logged: ${refused.join(' | ')}`,
    );
    await page.getByLabel('URL').fill(endpointUrl);
    await page.getByLabel('Description').fill('Order system');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    const secret = page.getByRole('region', { name: `Signing secret of ${endpointUrl}` });
    assert.match((await secret.locator('code').innerText()).trim(), /^whsec_/);
    await page.getByRole('heading', { level: 3, name: new RegExp(endpointUrl.replace(/[.]/g, '\\.')) }).waitFor();

    const created = await (await app.g.api.post(secretKey, app.g.validBody())).json();
    assert.equal((await app.g.api.settled(secretKey, created.id)).status, 'complete');
    await waitFor('the delivery at the receiver', () =>
      receiver.requests.some((request) => request.body.toString().includes(created.id)),
    );

    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Developers' }).waitFor();
    await settled(page);
    const event = page
      .getByRole('region', { name: 'Events and deliveries' })
      .getByRole('listitem')
      .filter({ hasText: created.id });
    await event.getByRole('button', { name: 'Show deliveries' }).click();
    await settled(page);
    const deliveries = event.getByRole('table', { name: /^Deliveries of evt_/ });
    const delivered = deliveries.getByRole('row').filter({ hasText: /succeeded/ });
    await delivered.waitFor();
    // The endpoint is named by where it delivers, not by its `whe_…` id.
    assert.equal((await delivered.getByRole('rowheader').innerText()).trim(), endpointUrl);
    assert.doesNotMatch(await event.innerText(), /whe_/);
    const attempts = event.getByRole('table', { name: /^Attempts of evt_/ }).getByRole('row');
    assert.equal(await attempts.count(), 2, 'a header and one attempt');
    const cells = await attempts.nth(1).getByRole('cell').allInnerTexts();
    assert.ok(cells.includes('200'), `status code shown: ${cells.join(' | ')}`);
    assert.ok(
      cells.some((cell) => /^\d+ ms$/.test(cell)),
      `duration shown: ${cells.join(' | ')}`,
    );
    await attempts.nth(1).getByText('Show').click();
    await event.getByText('received, thanks').waitFor();

    const before = receiver.requests.length;
    await event.getByRole('button', { name: 'Resend event' }).click();
    await page.getByRole('status').filter({ hasText: 'queued for delivery again' }).waitFor();
    await waitFor('the resent delivery', () => receiver.requests.length > before);
    // The list shows the second attempt once it is in: reopen until it is.
    await waitFor('the second attempt in the page', async () => {
      await event.getByRole('button', { name: 'Hide deliveries' }).click();
      await event.getByRole('button', { name: 'Show deliveries' }).click();
      await settled(page);
      return (
        (await event
          .getByRole('table', { name: /^Attempts of evt_/ })
          .getByRole('row')
          .count()) === 3
      );
    });
  });

  it('shows the generation in the gallery and its detail view with every variant and its deliveries', async () => {
    const { page } = admin;
    await openSection(page, { link: 'Generations', heading: 'Generations' });
    const card = page.getByRole('link').filter({ hasText: generationId });
    const thumbnail = card.getByRole('img', { name: `Result of ${generationId}` });
    await thumbnail.waitFor();
    await waitFor('the thumbnail to load', () =>
      thumbnail.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0),
    );
    assert.ok(
      await card.getByText('Image generated by AI', { exact: true }).isVisible(),
      'the thumbnail is labelled as generated by AI',
    );
    // Titled by its products and mode; the id stays on the card (for finding it), below the title.
    assert.equal(await card.locator('.card-title').innerText(), 'Red shirt');
    assert.match(await card.innerText(), /Virtual try-on/);
    await card.click();
    await page.getByRole('heading', { level: 1, name: `Generation ${generationId}` }).waitFor();
    await settled(page);
    assert.equal(await page.locator('.lead').innerText(), 'Virtual try-on of Red shirt');
    // The image once (the detail variant), the other sizes as links: no picture repeated.
    const image = page.getByRole('img', { name: 'The generated image of Red shirt' });
    await waitFor('the image to load', () =>
      image.evaluate((element: HTMLImageElement) => element.complete && element.naturalWidth > 0),
    );
    assert.equal(await page.getByRole('main').getByRole('img').count(), 1, 'one image on the page');
    assert.match((await image.getAttribute('src')) ?? '', /\/detail\.jpg$/);
    for (const size of ['list (200 px)', 'card (600 px)', 'detail (1200 px)', 'original (full size)'])
      await page.getByRole('link', { name: size }).waitFor();
    assert.equal(
      await page.locator('.generation-image .ai-label').filter({ hasText: 'Image generated by AI' }).count(),
      1,
      'the image is labelled as generated by AI',
    );
    // Which engine rendered it, as the route recorded it (not in the API's resource).
    const renderedBy = page
      .locator('dl.facts dt', { hasText: 'Rendered by' })
      .locator('xpath=following-sibling::dd[1]');
    await waitFor('the engine to show', async () => (await renderedBy.textContent()) === 'mock');
    await page.getByRole('cell', { name: 'sku-1' }).waitFor();
    await page.getByRole('rowheader', { name: 'Red shirt' }).waitFor();
    await page.getByText('from-the-dashboard-key').waitFor();
    // Made before the endpoint existed: its event has no delivery, and the page says so.
    await page.getByRole('heading', { level: 3, name: /generation\.completed/ }).waitFor();
    await page.getByText('No deliveries').waitFor();
    await page.getByRole('link', { name: '← All generations' }).click();
    await page.getByRole('heading', { level: 1, name: 'Generations' }).waitFor();
  });

  it('a failed generation says it failed, why, and that its credits were refunded', async () => {
    const { page } = admin;
    const widget = await app.createWidget(shop.apiKey, { storeId: shop.storeId });
    const failed = await app.visualize(widget.id, 'v-failed', 's-failed', ['sku-4'], {
      image: `${app.g.host.url}/missing`,
    });
    assert.equal(failed.status, 'failed');
    const { error } = await (await app.g.api.get(shop.apiKey, `/v1/generations/${failed.id}`)).json();
    await page.goto(app.dashboard(`/generations/${failed.id}`));
    const section = page.getByRole('region', { name: 'This generation failed' });
    await section.waitFor();
    const text = await section.innerText();
    assert.ok(text.includes(error.message) && text.includes(error.code), text);
    assert.match(text, /No image was made, and its 1 credit was refunded/);
    assert.doesNotMatch(await page.getByRole('main').innerText(), /No image \./);
  });

  it('renders every page, with no console error and no request to another origin', async () => {
    const { page } = admin;
    const widget = await app.createWidget(shop.apiKey, { storeId: shop.storeId });
    const order = await app.postOrder(
      {
        storeId: shop.storeId,
        organizationId: shop.organizationId,
        orderId: 'A-1001',
        visitorId: 'v-1',
        sessionId: 's-1',
        totalCents: 4_900,
        currency: 'USD',
        platform: 'custom',
        status: 'completed',
        orderCreatedAt: new Date().toISOString(),
        items: [],
      },
      shop.conversionKey,
    );
    assert.equal(order.status, 200, await order.text());

    for (const section of dashboardPages) {
      await openSection(page, section);
      assert.equal(new URL(page.url()).hash, `#${section.path}`);
      assert.equal(await page.getByRole('alert').count(), 0, `${section.name}: no error shown`);
    }
    // Overview: the four charts, drawn.
    await openSection(page, dashboardPages[0]);
    assert.equal(await page.getByRole('figure').count(), 4);
    await waitFor('four canvases', async () => (await page.locator('figure canvas').count()) >= 4);
    await page.getByRole('table', { name: /visitors who visualized/ }).waitFor();
    // Stores & widgets: the ids and the widget's embed snippet.
    await openSection(page, dashboardPages[3]);
    await page.getByRole('cell', { name: new RegExp(shop.storeId) }).waitFor();
    await page.getByText(shop.organizationId).waitFor();
    await page.getByText('Embed snippet').first().click();
    const snippet = await page.getByLabel(`Embed snippet of ${widget.id}`).innerText();
    assert.ok(
      snippet.includes(widget.id) && snippet.includes(shop.storeId) && snippet.includes(`${app.base}/`),
      snippet,
    );
    // Conversions, credits and the team, with their rows.
    await openSection(page, dashboardPages[4]);
    await page.getByRole('rowheader', { name: 'A-1001' }).waitFor();
    await openSection(page, dashboardPages[5]);
    assert.ok((await page.getByRole('row').count()) >= 3, 'the ledger lists the grant and the spends');
    await page.getByRole('cell', { name: 'Initial credits', exact: true }).waitFor();
    await page.getByRole('cell', { name: 'Refund of a generation', exact: true }).first().waitFor();
    assert.equal(await page.getByText(/initial_grant|generation_refund/).count(), 0, 'no raw ledger reason');
    await openSection(page, dashboardPages[6]);
    await page
      .getByRole('cell', { name: 'owner@acme.example' })
      .or(page.getByRole('rowheader', { name: 'owner@acme.example' }))
      .first()
      .waitFor();
    // Sessions name the browser briefly; the whole User-Agent is in the tooltip.
    const mine = page.getByRole('region', { name: 'Your sessions table' }).getByRole('rowheader').first();
    assert.match(await mine.innerText(), /^(Headless )?Chrome on Linux \(this browser\)$/);
    assert.match((await mine.locator('span[title]').getAttribute('title')) ?? '', /^Mozilla\/5\.0/);

    assert.deepEqual(admin.errors, []);
    assert.deepEqual(admin.elsewhere, [], "no request left the service's origin");
  });

  it("shows each widget's daily caps and today's use, and an admin sets or removes the credit cap", async () => {
    const { page } = admin;
    const widget = await app.createWidget(shop.apiKey, { storeId: shop.storeId, imageSize: '1K', dailyCreditCap: 3 });
    await app.visualize(widget.id, 'v-caps', 's-caps');
    await openSection(page, dashboardPages[3]);
    const row = page
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { level: 3, name: new RegExp(widget.id) }) });
    await row.getByText('500 generations, 3 credits').waitFor();
    await row.getByText('1 of 500 generations, 1 of 3 credits').waitFor();

    await row.getByRole('button', { name: 'Edit widget' }).click();
    const form = page.getByRole('form', { name: `Edit ${widget.id}` });
    assert.equal(await form.getByLabel(/Daily credit cap/).inputValue(), '3');
    await form.getByLabel(/Daily credit cap/).fill('2');
    await form.getByRole('button', { name: 'Save widget' }).click();
    await row.getByText('1 of 500 generations, 1 of 2 credits').waitFor();
    assert.equal((await (await app.v1(shop.apiKey, `/v1/widgets/${widget.id}`)).json()).dailyCreditCap, 2);
    await app.visualize(widget.id, 'v-caps-2', 's-caps-2');
    await page.reload();
    await settled(page);
    await row.getByText('2 of 500 generations, 2 of 2 credits (cap reached until midnight UTC)').waitFor();

    await row.getByRole('button', { name: 'Edit widget' }).click();
    await form.getByLabel(/Daily credit cap/).fill('');
    await form.getByRole('button', { name: 'Save widget' }).click();
    await row.getByText('500 generations, no credit cap').waitFor();
    await row.getByText('2 of 500 generations, 2 credits').waitFor();
    assert.equal(
      (await (await app.v1(shop.apiKey, `/v1/widgets/${widget.id}`)).json()).dailyCreditCap,
      null,
      'empty: no cap',
    );
    assert.deepEqual(admin.errors, []);
  });

  it('a viewer sees no control to create a key, and the server refuses one sent without the UI (403)', async () => {
    const url = await app.cliInvite(shop.organizationId, 'viewer@acme.example', 'viewer');
    const viewer = await person(app);
    people.push(viewer);
    await acceptInvitation(viewer.page, url);
    await viewer.page.getByText('(viewer)').waitFor();
    await openSection(viewer.page, { link: 'Developers', heading: 'Developers' });
    await viewer.page.getByRole('heading', { level: 2, name: 'API keys' }).waitFor();
    assert.equal(await viewer.page.getByRole('form', { name: 'Create a key' }).count(), 0);
    assert.equal(await viewer.page.getByRole('button', { name: 'Create key' }).count(), 0);
    assert.equal(await viewer.page.getByRole('button', { name: 'Add an endpoint' }).count(), 0);
    assert.equal(await viewer.page.getByRole('button', { name: 'Revoke' }).count(), 0);
    assert.equal(
      await viewer.page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Team' }).count(),
      0,
    );
    // Every page a viewer has reads without an error: none calls an admin-only route.
    for (const section of dashboardPages) {
      await openSection(
        viewer.page,
        section.name === 'team' ? { link: 'Sessions', heading: 'Your sessions' } : section,
      );
      assert.equal(await viewer.page.getByRole('alert').count(), 0, `${section.name}: no error shown to a viewer`);
    }
    assert.equal(await viewer.page.getByRole('button', { name: 'Create invitation link' }).count(), 0);
    await viewer.page.goto(app.dashboard(`/generations/${generationId}`));
    await viewer.page.getByRole('heading', { level: 2, name: 'Metadata' }).waitFor();
    assert.equal(
      await viewer.page.getByRole('button', { name: 'Delete generation' }).count(),
      0,
      'a viewer cannot delete a generation',
    );
    assert.deepEqual(viewer.errors, []);

    const refused = await fromPage(viewer.page, 'POST', '/v1/api-keys', { kind: 'secret', name: 'sneaky' });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'insufficient_role');
    // With the same cookie and token, reading is allowed: the refusal is the role's.
    const listed = await viewer.page.evaluate(async () => (await fetch('../v1/api-keys')).json());
    assert.ok(!listed.data.some((key: { name: string | null }) => key.name === 'sneaky'), 'no key was made');
    assert.deepEqual(viewer.elsewhere, []);
  });

  it('the Privacy page finds a visitor and shows what is held; an admin erases them, a viewer cannot; the erasure is listed without the visitor', async () => {
    const widget = await app.createWidget(shop.apiKey, { storeId: shop.storeId });
    const made = [
      await app.visualize(widget.id, 'v-privacy', 's-privacy-1', ['sku-7']),
      await app.visualize(widget.id, 'v-privacy', 's-privacy-2', ['sku-8']),
    ];
    const identified = await app.collect({
      type: '$identify',
      storeId: shop.storeId,
      visitorId: 'v-privacy',
      sessionId: 's-privacy-2',
      userId: 'customer-77',
    });
    assert.equal(identified.status, 202);
    const order = await app.postOrder(
      {
        storeId: shop.storeId,
        organizationId: shop.organizationId,
        orderId: 'P-1',
        visitorId: '',
        sessionId: 's-privacy-1',
        totalCents: 1_900,
        currency: 'USD',
        platform: 'custom',
        status: 'completed',
        orderCreatedAt: new Date().toISOString(),
        items: [],
      },
      shop.conversionKey,
    );
    assert.equal(order.status, 200, await order.text());

    const lookUp = async (page: Page, visitorId: string) => {
      await openSection(page, { link: 'Privacy', heading: 'Privacy' });
      await page.getByLabel('Visitor id').fill(visitorId);
      await page.getByRole('button', { name: 'Look up' }).click();
      await page.getByRole('heading', { level: 2, name: `What is held about ${visitorId}` }).waitFor();
    };

    // A viewer may look, not erase.
    const viewer = await person(app);
    people.push(viewer);
    await acceptInvitation(
      viewer.page,
      await app.cliInvite(shop.organizationId, 'privacy-viewer@acme.example', 'viewer'),
    );
    await lookUp(viewer.page, 'v-privacy');
    await viewer.page.getByText('Only admins can erase a visitor.').waitFor();
    assert.equal(await viewer.page.getByRole('button', { name: /^Erase/ }).count(), 0);
    assert.deepEqual(viewer.errors, []);

    const { page } = admin;
    await lookUp(page, 'v-privacy');
    const counts = await page.locator('.cards dd').allInnerTexts();
    assert.deepEqual(counts, ['2', '1', '1'], 'generations, identities, conversions');
    await page
      .getByRole('region', { name: "The visitor's generations" })
      .getByRole('rowheader', { name: made[0]!.id })
      .waitFor();
    await page
      .getByRole('region', { name: "The visitor's identities" })
      .getByRole('rowheader', { name: 'customer-77' })
      .waitFor();
    await page
      .getByRole('region', { name: "The visitor's conversions" })
      .getByRole('rowheader', { name: 'P-1' })
      .waitFor();
    const download = await page.getByRole('link', { name: 'Download as JSON' }).getAttribute('href');
    const downloaded = JSON.parse(decodeURIComponent(download!.replace(/^data:application\/json;charset=utf-8,/, '')));
    assert.deepEqual(
      [downloaded.visitorId, downloaded.generations.total, downloaded.identities.data[0].userId],
      ['v-privacy', 2, 'customer-77'],
    );

    await page.getByRole('button', { name: 'Erase this visitor…' }).click();
    await page.getByRole('button', { name: 'Erase everything about this visitor' }).click();
    await page.getByRole('status').filter({ hasText: 'Erasure complete' }).first().waitFor({ timeout: 20_000 });
    await page.getByText('Nothing is held about this visitor.').waitFor();
    const row = page.getByRole('region', { name: 'Erasures table' }).getByRole('row').nth(1);
    await row.getByText('complete').waitFor();
    const cells = await row.getByRole('cell').allInnerTexts();
    assert.ok(
      cells.some((cell) => cell.includes('user usr_')),
      `the requester: ${cells.join(' | ')}`,
    );
    assert.deepEqual(cells.slice(-3), ['2', '1', '1']);
    assert.ok(
      !(await page.getByRole('region', { name: 'Erasures', exact: true }).innerText()).includes('v-privacy'),
      'the list names no visitor',
    );
    for (const generation of made)
      assert.equal((await app.g.api.get(shop.apiKey, `/v1/generations/${generation.id}`)).status, 404);
    const conversion = await app.conversion(shop.apiKey, shop.storeId, 'P-1');
    assert.deepEqual([conversion.visitorId, conversion.sessionId, conversion.totalCents], [null, null, 1_900]);
    assert.deepEqual(admin.errors, []);
    assert.deepEqual(admin.elsewhere, []);
  });

  it("a session of another organization cannot read this organization's generation", async () => {
    const other = await app.cliOrganization('Other Shop', 'owner@other.example');
    const outsider = await person(app);
    people.push(outsider);
    await acceptInvitation(outsider.page, other.invitationUrl);
    const read = await fromPage(outsider.page, 'GET', `/v1/generations/${generationId}`);
    assert.equal(read.status, 404);
    assert.equal(read.body.error.code, 'resource_missing');
    await outsider.page.goto(app.dashboard(`/generations/${generationId}`));
    await outsider.page.getByRole('heading', { level: 1, name: `Generation ${generationId}` }).waitFor();
    await outsider.page.getByRole('alert').first().waitFor();
    assert.equal(await outsider.page.getByRole('img', { name: /generated image/ }).count(), 0);
    // The gallery is the outsider's own: empty.
    await openSection(outsider.page, { link: 'Generations', heading: 'Generations' });
    await outsider.page.getByText('No generations match').waitFor();
  });

  it('an admin deletes a generation from its page after confirming; its images and GET answer 404', async () => {
    const { page } = admin;
    const response = await app.g.api.post(secretKey, app.g.validBody());
    const id = JSON.parse(await response.text()).id as string;
    const done = await app.g.api.settled(secretKey, id);
    assert.equal(done.status, 'complete');
    await page.goto(app.dashboard(`/generations/${id}`));
    await page.getByRole('heading', { level: 1, name: `Generation ${id}` }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Delete' }).waitFor();
    await page.getByRole('button', { name: 'Delete generation' }).click();
    await page.getByRole('button', { name: `Delete ${id} for good` }).click();
    await page.getByRole('heading', { level: 1, name: 'Generations' }).waitFor();
    await page.getByText(`Generation ${id} deleted.`).waitFor();
    assert.equal((await app.g.api.get(secretKey, `/v1/generations/${id}`)).status, 404);
    await waitFor('the image to answer 404', async () => (await fetch(done.imageUrl)).status === 404);
    assert.deepEqual(admin.errors, []);
  });

  it('a sign-in link that does not work says so in its heading, and how to get in instead', async () => {
    const stranger = await person(app);
    people.push(stranger);
    await stranger.page.goto(app.dashboard('/sign-in-link?token=not-a-real-token'));
    await stranger.page.getByRole('heading', { level: 1, name: 'This sign-in link did not work' }).waitFor();
    assert.equal(await stranger.page.getByRole('heading', { name: 'Signing you in…' }).count(), 0);
    const text = await stranger.page.getByRole('main').innerText();
    assert.match(text, /restart npm start/);
    assert.match(text, /If you have set a password: sign in with your email and password/);
  });

  it('signing out ends the session: the old cookie is refused afterwards', async () => {
    const { page, context } = admin;
    const cookie = (await context.cookies()).find((found) => found.name === 'visualizer_session');
    assert.ok(cookie);
    const header = { cookie: `${cookie.name}=${cookie.value}` };
    assert.equal((await fetch(`${app.base}/v1/session`, { headers: header })).status, 200);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in to Visualizer' }).waitFor();
    assert.equal(
      (await context.cookies()).some((found) => found.name === 'visualizer_session'),
      false,
      'the cookie is cleared',
    );
    await errorOf(await fetch(`${app.base}/v1/session`, { headers: header }), 401);
    // Signing in again with the password chosen from the link works.
    await page.getByLabel('Email').fill('owner@acme.example');
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    assert.deepEqual(admin.errors, []);
  });
});
