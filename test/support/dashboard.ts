import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { startScheduler } from '../../core/lifecycle.ts';
import { shopOrigin, startBrowserApp } from './browser-app.ts';
import { cli } from './cli.ts';
import { startHttpsServer, type TestHttpsServer } from './https-server.ts';
import { invitedSession } from './sessions.ts';

/** What every invited person of these suites chooses as their password. */
export const dashboardPassword = 'a long enough password';

export { dashboardPages, dashboardViewports, screenshotFile, screenshotNames } from './dashboard-pages.ts';

/**
 * The real app (workers, the webhook scheduler) as `startBrowserApp` runs it, plus what the
 * operator's CLI needs to reach the same database, and the public URL the browser must use: the
 * session's CSRF check refuses any other Origin.
 */
export async function startDashboardApp(
  options: { env?: Record<string, string>; config?: Record<string, unknown> } = {},
) {
  const b = await startBrowserApp({
    env: options.env,
    // Deliveries retry fast so a test never waits for the production schedule.
    config: { webhooks: { retrySchedule: [0, 200, 400], sweepIntervalMs: 100 }, ...options.config },
  });
  const { config } = b.g.app.container.cradle;
  await startScheduler(b.g.app.container.cradle);
  const cliEnv: Record<string, string> = {
    VISUALIZER_DATA_DIR: config.dataDir,
    VISUALIZER_PUBLIC_URL: config.publicUrl,
    // Empty counts as unset: a DATABASE_URL in the shell running the tests must not send the CLI elsewhere.
    DATABASE_URL: options.env?.DATABASE_URL ?? '',
  };
  /** The real `visualizer` binary on this app's database; fails the test on a non-zero exit. */
  const run = async (args: string[]) => {
    const result = await cli(args, cliEnv);
    assert.equal(result.code, 0, `visualizer ${args.join(' ')}: ${result.stderr}`);
    return result.stdout;
  };
  return {
    ...b,
    /** `http://localhost:PORT`: the dashboard's origin. */
    base: config.publicUrl,
    dashboard: (path = '/overview') => `${config.publicUrl}/dashboard/#${path}`,
    cli: run,
    /** `visualizer orgs create --admin-email`: an organization with its keys and its first admin's invitation link. */
    async cliOrganization(name: string, adminEmail: string, credits = 100) {
      const created = JSON.parse(
        await run([
          'orgs',
          'create',
          '--name',
          name,
          '--credits',
          String(credits),
          '--admin-email',
          adminEmail,
          '--json',
        ]),
      ) as {
        organizationId: string;
        storeId: string;
        apiKey: string;
        conversionKey: string;
        adminInvitation: { url: string; userId: string };
      };
      return { ...created, invitationUrl: created.adminInvitation.url };
    },
    /** `visualizer users invite`: the one-time link it prints. */
    async cliInvite(organizationId: string, email: string, role: 'admin' | 'viewer') {
      return (
        JSON.parse(
          await run(['users', 'invite', '--org', organizationId, '--email', email, '--role', role, '--json']),
        ) as { url: string }
      ).url;
    },
  };
}

export type DashboardApp = Awaited<ReturnType<typeof startDashboardApp>>;

/**
 * Aborts and records every request of `context` to another origin than `origin` (data: URLs
 * aside), so a page that reaches elsewhere fails its test instead of quietly calling out.
 */
export async function recordOtherOrigins(context: BrowserContext, origin: string): Promise<string[]> {
  const elsewhere: string[] = [];
  await context.route(
    (target) => target.protocol !== 'data:' && target.origin !== new URL(origin).origin,
    (route) => {
      elsewhere.push(route.request().url());
      return route.abort('blockedbyclient');
    },
  );
  return elsewhere;
}

/** Opens an invitation link, sets the password as the invitee would, and waits for the overview. */
export async function acceptInvitation(page: Page, url: string, password = dashboardPassword) {
  await page.goto(url);
  await page.getByRole('heading', { level: 1, name: 'Set your password' }).waitFor();
  await page.getByLabel('New password').fill(password);
  await page.getByLabel('Repeat the password').fill(password);
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
}

/**
 * Goes to a section through its nav link (the menu is folded away on narrow screens) and waits
 * for its heading and for its lists to finish loading.
 */
export async function openSection(page: Page, section: { link: string; heading: string }) {
  const toggle = page.getByRole('button', { name: 'Menu' });
  if (await toggle.isVisible()) {
    if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  }
  await page
    .getByRole('navigation', { name: 'Sections' })
    .getByRole('link', { name: section.link, exact: true })
    .click();
  await page.getByRole('heading', { level: 1, name: section.heading, exact: true }).waitFor();
  await settled(page);
}

/** Waits until the page shows no "Loading…" text (lists and figures have arrived). */
export async function settled(page: Page) {
  await page.waitForFunction(() => !/Loading…|Loading deliveries…/.test(document.body.innerText), undefined, {
    timeout: 20_000,
  });
}

/** A webhook receiver that answers 200 with a short body, on HTTPS loopback (the app trusts its CA). */
export function startWebhookReceiver(): Promise<TestHttpsServer> {
  return startHttpsServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end('received, thanks');
  });
}

/**
 * Realistic data for the pages to show, in an organization made by `cliOrganization`: a webhook
 * endpoint with deliveries, a widget, completed and failed generations (through the widget and by
 * API), orders reported (one attributed), and a second user (a viewer). Returns what it made.
 */
export async function seedDashboard(
  app: DashboardApp,
  shop: { organizationId: string; storeId: string; apiKey: string; conversionKey: string },
  receiver: TestHttpsServer,
) {
  const endpoint = await app.v1(shop.apiKey, '/v1/webhook-endpoints', {
    body: { url: `${receiver.url}/hooks/visualizer`, description: 'Order system', enabledEvents: ['*'] },
  });
  assert.equal(endpoint.status, 201, await endpoint.clone().text());
  const widget = await app.createWidget(shop.apiKey, {
    storeId: shop.storeId,
    allowedOrigins: [shopOrigin, 'https://www.shop.example'],
    dailyGenerationCap: 500,
    dailyCreditCap: 200,
  });
  await app.createWidget(shop.apiKey, { storeId: shop.storeId, mode: 'room-visualizer', imageSize: '2K' });

  const generations: string[] = [];
  for (const [index, visitor] of ['v-ana', 'v-ben', 'v-cleo'].entries()) {
    const made = await app.visualize(widget.id, visitor, `s-${visitor}`, [`sku-${index + 1}`]);
    assert.equal(made.status, 'complete');
    generations.push(made.id);
  }
  const failed = await app.visualize(widget.id, 'v-dan', 's-v-dan', ['sku-4'], { image: `${app.g.host.url}/missing` });
  assert.equal(failed.status, 'failed');
  const byApi = await (
    await app.g.api.post(
      shop.apiKey,
      app.g.validBody({ hint: 'Front view, natural light', metadata: { campaign: 'spring' } }),
    )
  ).json();
  assert.equal((await app.g.api.settled(shop.apiKey, byApi.id)).status, 'complete');

  const order = (orderId: string, visitorId: string, productId: string, totalCents: number) => ({
    storeId: shop.storeId,
    organizationId: shop.organizationId,
    orderId,
    visitorId,
    sessionId: visitorId ? `s-${visitorId}` : '',
    totalCents,
    currency: 'USD',
    platform: 'custom',
    status: 'completed',
    orderCreatedAt: new Date().toISOString(),
    items: [{ productId, quantity: 1, priceCents: totalCents, totalCents }],
  });
  for (const [orderId, visitorId, productId, total] of [
    ['1001', 'v-ana', 'sku-1', 4_900],
    ['1002', 'v-nobody', 'sku-9', 2_500],
    ['1003', 'v-ben', 'sku-2', 7_450],
  ] as const) {
    const response = await app.postOrder(order(orderId, visitorId, productId, total), shop.conversionKey);
    assert.equal(response.status, 200, await response.text());
  }
  const viewer = await invitedSession(
    app.g.app,
    shop.organizationId,
    'viewer',
    'viewer@shop.example',
    dashboardPassword,
  );
  return { widgetId: widget.id, generations: [...generations, byApi.id], failedId: failed.id, viewer };
}

/**
 * The long things a phone screen must fit: several keys (one revoked, one with a long name), and a
 * second store with a long name for the store pickers. Returns the second store's id.
 */
export async function seedLongRows(app: DashboardApp, shop: { organizationId: string; apiKey: string }) {
  const { tenants } = app.g.app.container.cradle;
  await tenants.createKey(shop.organizationId, 'secret', 'Order system, production servers in Frankfurt');
  await tenants.createKey(shop.organizationId, 'conversion', 'Shopify order webhook');
  const retired = await tenants.createKey(shop.organizationId, 'secret', 'Old staging server');
  await tenants.revokeKey(shop.organizationId, retired.record.id);
  const store = await app.v1(shop.apiKey, '/v1/stores', {
    body: { name: 'European storefront (EUR)' },
  });
  assert.equal(store.status, 201, await store.clone().text());
  return ((await store.json()) as { id: string }).id;
}
