/**
 * Takes the screenshots in docs/dashboard/: every dashboard page at 1280×800 and at 390×844, as
 * `<page>-<width>.png` (the viewport, not the whole page, so each file stays small). Runs the real
 * app on a fresh data dir (mock renderer, SQLite) with a week of realistic data: generations
 * through a widget and by API, some failed, orders (some attributed), a webhook endpoint with its
 * deliveries to a loopback HTTPS receiver, two widgets and a second user; then signs in with
 * Debian's Chromium.
 *
 *   npm run screenshots [-- output-dir]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import type { Page } from 'playwright-core';
import { launchChromium, recordPageErrors } from '../test/support/browser.ts';
import {
  dashboardPages,
  dashboardPassword,
  dashboardViewports,
  openSection,
  seedDashboard,
  settled,
  startDashboardApp,
  startWebhookReceiver,
  type DashboardApp,
} from '../test/support/dashboard.ts';
import { screenshotFile } from '../test/support/dashboard-pages.ts';
import { invitedSession } from '../test/support/sessions.ts';

const output = path.resolve(process.argv[2] ?? 'docs');
const dayMs = 86_400_000;

/**
 * Earlier days for the charts: each day generations by API (one failed on odd days), two shoppers
 * visualizing through the widget (one then orders: attributed), an order from someone who did not
 * visualize, and a few browsing visitors who identify but buy nothing.
 */
async function history(app: DashboardApp, shop: Awaited<ReturnType<DashboardApp['organization']>>, widgetId: string) {
  const order = async (orderId: string, visitorId: string, productId: string, totalCents: number, at: string) => {
    const response = await app.postOrder(
      {
        storeId: shop.storeId,
        organizationId: shop.organizationId,
        orderId,
        visitorId,
        sessionId: `s-${visitorId}`,
        totalCents,
        currency: 'USD',
        platform: 'custom',
        status: 'completed',
        orderCreatedAt: at,
        items: [{ productId, quantity: 1, priceCents: totalCents, totalCents }],
      },
      shop.conversionKey,
    );
    if (response.status !== 200) throw new Error(`order ${orderId}: ${response.status} ${await response.text()}`);
  };
  for (let daysAgo = 6; daysAgo >= 1; daysAgo -= 1) {
    app.setClockOffset(-daysAgo * dayMs);
    for (let index = 0; index < (daysAgo % 3) + 1; index += 1) {
      const failed = index === 0 && daysAgo % 2 === 1;
      const created = await (
        await app.g.api.post(shop.apiKey, app.g.validBody(failed ? { image: `${app.g.host.url}/missing` } : {}))
      ).json();
      await app.g.api.settled(shop.apiKey, created.id);
    }
    for (const visitor of ['a', 'b'])
      await app.visualize(widgetId, `v-${daysAgo}-${visitor}`, `s-v-${daysAgo}-${visitor}`, [`sku-${daysAgo}`]);
    // A minute after the visualizations: attribution looks back from the order.
    const at = new Date(Date.now() - daysAgo * dayMs + 60_000).toISOString();
    await order(`20${daysAgo}1`, `v-${daysAgo}-a`, `sku-${daysAgo}`, 2_400 + daysAgo * 1_150, at);
    await order(`20${daysAgo}2`, `v-${daysAgo}-c`, 'sku-9', 1_900 + daysAgo * 300, at);
    for (let index = 0; index < 4; index += 1) {
      const response = await app.collect({
        type: '$identify',
        storeId: shop.storeId,
        visitorId: `v-${daysAgo}-browse-${index}`,
        sessionId: `s-${daysAgo}-browse-${index}`,
        userId: `customer-${daysAgo}-${index}`,
      });
      if (response.status >= 300) throw new Error(`identify: ${response.status} ${await response.text()}`);
    }
  }
  app.setClockOffset(0);
}

/** The viewport as a PNG with a palette: a fraction of the size, the same look for flat UI colours. */
async function shoot(page: Page, name: string, width: number) {
  await page.mouse.move(0, 0);
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  const png = await sharp(await page.screenshot())
    .png({ palette: true, quality: 90, compressionLevel: 9, effort: 10 })
    .toBuffer();
  const file = path.join(output, screenshotFile(name, width));
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, png);
  console.log(`wrote ${path.relative(process.cwd(), file)} (${png.length} bytes)`);
}

const receiver = await startWebhookReceiver();
const app = await startDashboardApp();
const browser = await launchChromium();
try {
  const shop = await app.organization('Acme Outfitters', 500);
  await invitedSession(app.g.app, shop.organizationId, 'admin', 'owner@acme.example', dashboardPassword);
  const seeded = await seedDashboard(app, shop, receiver);
  await history(app, shop, seeded.widgetId);
  // A visitor erased earlier, for the Privacy page's list of erasures.
  const erased = await (await app.v1(shop.apiKey, '/v1/visitors/v-dan', { method: 'DELETE' })).json();
  for (
    let tries = 0;
    (await (await app.v1(shop.apiKey, `/v1/visitor-erasures/${erased.id}`)).json()).status !== 'complete';
    tries += 1
  ) {
    if (tries > 200) throw new Error('the erasure of v-dan did not complete');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  for (const viewport of dashboardViewports) {
    const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
    // A page that logged an error is not one to show in the docs.
    const errors = recordPageErrors(context);
    const page = await context.newPage();
    await page.goto(app.dashboard('/sign-in'));
    await page.getByRole('heading', { level: 1, name: 'Sign in to Visualizer' }).waitFor();
    await shoot(page, 'sign-in', viewport.width);
    await page.getByLabel('Email').fill('owner@acme.example');
    await page.getByLabel('Password').fill(dashboardPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

    for (const section of dashboardPages) {
      await openSection(page, section);
      if (section.name === 'generations') {
        // Thumbnails load lazily: wait for those in view.
        await page.waitForFunction(() =>
          Array.from(document.images).every(
            (image) => image.complete || image.getBoundingClientRect().top > innerHeight,
          ),
        );
      }
      if (section.name === 'stores') {
        await page.getByText('Embed snippet').first().click();
        await page
          .getByRole('heading', { level: 2, name: 'Widgets' })
          .evaluate((heading) => heading.scrollIntoView({ block: 'start' }));
      }
      if (section.name === 'privacy') {
        await page.getByLabel('Visitor id').fill('v-ana');
        await page.getByRole('button', { name: 'Look up' }).click();
        await page.getByRole('heading', { level: 2, name: 'What is held about v-ana' }).waitFor();
      }
      await shoot(page, section.name, viewport.width);
      if (section.name === 'developers') {
        // The events come after the keys and endpoints: the first one's deliveries and attempts.
        const events = page.getByRole('region', { name: 'Events and deliveries' });
        await events.getByRole('button', { name: 'Show deliveries' }).first().click();
        await settled(page);
        await page
          .getByRole('heading', { level: 2, name: 'Events and deliveries' })
          .evaluate((heading) => heading.scrollIntoView({ block: 'start' }));
        await shoot(page, 'developers-events', viewport.width);
      }
      if (section.name === 'overview') {
        await page
          .getByRole('heading', { level: 2, name: 'Per day' })
          .evaluate((heading) => heading.scrollIntoView({ block: 'start' }));
        await shoot(page, 'overview-charts', viewport.width);
      }
    }

    await page.goto(app.dashboard(`/generations/${seeded.generations.at(-1)}`));
    await page.getByRole('heading', { level: 1, name: /^Generation / }).waitFor();
    await settled(page);
    await page.waitForFunction(() =>
      Array.from(document.images).every(
        (image) => (image.complete && image.naturalWidth > 0) || image.getBoundingClientRect().top > innerHeight,
      ),
    );
    await shoot(page, 'generation', viewport.width);
    await context.close();
    if (errors.length) throw new Error(`the pages logged errors at ${viewport.width} px:\n${errors.join('\n')}`);
  }
} finally {
  await browser.close();
  await app.close();
  await receiver.close();
}
