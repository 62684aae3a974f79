import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, recordPageErrors } from '../support/browser.ts';
import {
  dashboardPages,
  dashboardPassword,
  dashboardViewports,
  openSection,
  recordOtherOrigins,
  seedDashboard,
  seedLongRows,
  settled,
  startDashboardApp,
  startWebhookReceiver,
  type DashboardApp,
} from '../support/dashboard.ts';
import type { TestHttpsServer } from '../support/https-server.ts';
import { invitedSession } from '../support/sessions.ts';

/**
 * Every dashboard page, at 1280×800 and at 390×844, with realistic data: axe-core finds no serious
 * or critical violation, nothing overflows sideways on a phone nor hides an action in a sideways
 * scrolling box, the open menu says who is signed in, and the keyboard reaches the
 * sections and each page's main actions with a visible focus ring. SQLite only: the pages are the
 * same whatever the database.
 */

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[]; failureSummary: string }>;
}

/**
 * The page's CSP (`script-src 'self'`) refuses an inline `<script>`, so `addScriptTag({ content })`
 * cannot inject axe. `page.evaluate` runs the source through the DevTools protocol, which CSP does
 * not govern, and leaves the page's policy in force for everything else (a `bypassCSP` context
 * would switch it off for the page under test as well).
 */
async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(context: Document, options: unknown): Promise<{ violations: AxeViolation[] }> };
      }
    ).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  });
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.impact} ${violation.id} (${violation.help}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    );
}

/** Whether the page is wider than the window (a sideways scroll on a phone). */
const overflow = (page: Page) =>
  page.evaluate(() => ({ scrollWidth: document.scrollingElement!.scrollWidth, innerWidth }));

async function assertFits(page: Page, where: string) {
  const { scrollWidth, innerWidth } = await overflow(page);
  assert.ok(scrollWidth <= innerWidth, `${where}: ${scrollWidth} px wide in a ${innerWidth} px window`);
}

/**
 * The actions (links, buttons, form fields) inside `scope` that a phone user cannot reach without
 * scrolling sideways: outside the window, or cut off by an ancestor that scrolls or clips
 * horizontally. Each as its accessible name (roughly) and the reason.
 */
async function unreachableActions(page: Page, scope: string): Promise<string[]> {
  // No named inner functions: tsx would wrap them in a `__name` helper the page does not have.
  return page.evaluate((scope) => {
    const offenders: Array<{ element: HTMLElement; reason: string }> = [];
    const actions = document.querySelectorAll<HTMLElement>(
      ['button', 'a[href]', 'input', 'select', 'textarea'].map((tag) => `${scope} ${tag}`).join(', '),
    );
    for (const element of Array.from(actions)) {
      const box = element.getBoundingClientRect();
      if (box.width === 0 || box.height === 0 || getComputedStyle(element).visibility === 'hidden') continue;
      if (box.left < -0.5 || box.right > innerWidth + 0.5) {
        offenders.push({ element, reason: `at ${Math.round(box.left)}…${Math.round(box.right)} px` });
        continue;
      }
      for (let ancestor = element.parentElement; ancestor; ancestor = ancestor.parentElement) {
        if (ancestor.scrollWidth <= ancestor.clientWidth) continue;
        if (!/auto|scroll|hidden|clip/.test(getComputedStyle(ancestor).overflowX)) continue;
        const clip = ancestor.getBoundingClientRect();
        if (box.left < clip.left - 0.5 || box.right > clip.right + 0.5) {
          offenders.push({ element, reason: `cut off by ${ancestor.tagName.toLowerCase()}.${ancestor.className}` });
          break;
        }
      }
    }
    return offenders.map(({ element, reason }) => {
      const name =
        element.getAttribute('aria-label') ??
        (element as HTMLInputElement).labels?.[0]?.textContent ??
        (element.innerText || element.getAttribute('title') || element.outerHTML.slice(0, 80));
      return `${name.trim().replace(/\s+/g, ' ')}: ${reason}`;
    });
  }, scope);
}

/** An element the Tab key reached: its name, and whether its focus ring shows. */
interface Stop {
  name: string;
  tag: string;
  ring: boolean;
}

/**
 * Presses Tab until focus comes back to the first element reached (or `limit` presses), recording
 * each element, its name, and whether it draws a focus ring (an outline or a box-shadow) that it
 * does not draw once focus has moved on. An element Tab visits several times (a date input's day,
 * month and year) has a ring if it showed one on any visit.
 */
async function tabThrough(page: Page, limit = 150): Promise<Stop[]> {
  await page.evaluate(() => ((window as unknown as { visited: unknown[] }).visited = []));
  const stops: Stop[] = [];
  for (let press = 0; press < limit; press += 1) {
    await page.keyboard.press('Tab');
    const stop = await page.evaluate(() => {
      const element = document.activeElement as HTMLElement | null;
      if (!element || element === document.body) return null;
      const visited = (window as unknown as { visited: Array<{ element: HTMLElement; style: string }> }).visited;
      const style = getComputedStyle(element);
      const ring = (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== 'none';
      const styleText = [style.outlineStyle, style.outlineWidth, style.outlineColor, style.boxShadow].join(' ');
      let index = visited.findIndex((seen) => seen.element === element);
      const back = index === 0 && visited.at(-1)!.element !== element;
      if (index === -1) index = visited.push({ element, style: styleText }) - 1;
      else if (ring) visited[index]!.style = styleText;
      const label =
        element.getAttribute('aria-label') ??
        (element as HTMLInputElement).labels?.[0]?.firstChild?.textContent ??
        element.innerText ??
        '';
      return { index, back, name: label.trim().replace(/\s+/g, ' '), tag: element.tagName.toLowerCase(), ring };
    });
    if (!stop) continue;
    if (stop.back) break;
    if (stops[stop.index]) stops[stop.index]!.ring ||= stop.ring;
    else stops[stop.index] = { name: stop.name, tag: stop.tag, ring: stop.ring };
  }
  // Now that focus has moved on, every element but the current one shows its unfocused style.
  const unchanged = await page.evaluate(() => {
    const visited = (window as unknown as { visited: Array<{ element: HTMLElement; style: string }> }).visited;
    return visited.map(({ element, style }) => {
      if (element === document.activeElement) return false;
      const now = getComputedStyle(element);
      return [now.outlineStyle, now.outlineWidth, now.outlineColor, now.boxShadow].join(' ') === style;
    });
  });
  return stops.map((stop, index) => ({ ...stop, ring: stop.ring && !unchanged[index] }));
}

/** What each page's main actions are called, for the keyboard check. */
const mainActions: Record<(typeof dashboardPages)[number]['name'], RegExp[]> = {
  overview: [/^Range/, /^Store of the charts/],
  generations: [/^Status/, /^Mode/, /agen_/],
  developers: [/^Create key$/, /^Add an endpoint$/, /^Show deliveries$/],
  stores: [/^Edit widget$/, /^Copy id$/],
  conversions: [/agen_/],
  credits: [/agen_/],
  privacy: [/^Visitor id/, /^Look up$/],
  team: [/^Create invitation link$/],
};

describe('dashboard accessibility', () => {
  let browser: Browser;
  let app: DashboardApp;
  let receiver: TestHttpsServer;
  let pendingInvitation: string;
  let generationId: string;
  const contexts: BrowserContext[] = [];

  before(async () => {
    browser = await launchChromium();
    receiver = await startWebhookReceiver();
    app = await startDashboardApp();
    const shop = await app.organization('Acme Outfitters', 500);
    await invitedSession(app.g.app, shop.organizationId, 'admin', 'owner@acme.example', dashboardPassword);
    const seeded = await seedDashboard(app, shop, receiver);
    await seedLongRows(app, shop);
    generationId = seeded.generations[0]!;
    pendingInvitation = (
      await app.g.app.container.cradle.accounts.invite(shop.organizationId, {
        email: 'new@acme.example',
        role: 'viewer',
      })
    ).url;
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await app?.close();
    await receiver?.close();
  });

  for (const viewport of dashboardViewports) {
    describe(`at ${viewport.width}×${viewport.height}`, () => {
      let page: Page;
      let errors: string[];
      let elsewhere: string[];

      before(async () => {
        const context = await browser.newContext({ viewport });
        contexts.push(context);
        errors = recordPageErrors(context);
        elsewhere = await recordOtherOrigins(context, app.base);
        page = await context.newPage();
      });

      it('the invitation and sign-in pages: no serious violation, no sideways scroll', async () => {
        await page.goto(pendingInvitation);
        await page.getByRole('heading', { level: 1, name: 'Set your password' }).waitFor();
        assert.deepEqual(await seriousViolations(page), [], 'accept-invitation');
        await assertFits(page, 'accept-invitation');

        await page.goto(app.dashboard('/sign-in'));
        await page.getByRole('heading', { level: 1, name: 'Sign in to Visualizer' }).waitFor();
        assert.deepEqual(await seriousViolations(page), [], 'sign-in');
        await assertFits(page, 'sign-in');

        await page.getByLabel('Email').fill('owner@acme.example');
        await page.getByLabel('Password').fill(dashboardPassword);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      });

      for (const section of dashboardPages) {
        it(`${section.name}: no serious or critical violation, no sideways scroll, every action in reach`, async () => {
          await openSection(page, section);
          // What the page folds away is checked unfolded too: the deliveries, the snippet, a chart's table.
          if (section.name === 'developers') {
            await page.getByRole('button', { name: 'Show deliveries' }).first().click();
            await settled(page);
          }
          if (section.name === 'stores') await page.getByText('Embed snippet').first().click();
          if (section.name === 'overview') await page.getByText('data table').first().click();
          if (section.name === 'privacy') {
            // A visitor with generations and an order: the tables and the erase control.
            await page.getByLabel('Visitor id').fill('v-ana');
            await page.getByRole('button', { name: 'Look up' }).click();
            await page.getByRole('heading', { level: 2, name: 'What is held about v-ana' }).waitFor();
          }
          assert.deepEqual(await seriousViolations(page), [], section.name);
          await assertFits(page, section.name);
          assert.deepEqual(await unreachableActions(page, 'main'), [], `${section.name}: actions out of reach`);
        });
      }

      it('the generation detail: no serious violation, no sideways scroll', async () => {
        await page.goto(app.dashboard(`/generations/${generationId}`));
        await page.getByRole('heading', { level: 1, name: `Generation ${generationId}` }).waitFor();
        await settled(page);
        assert.deepEqual(await seriousViolations(page), [], 'generation detail');
        await assertFits(page, 'generation detail');
        assert.deepEqual(await unreachableActions(page, 'main'), [], 'generation detail: actions out of reach');
      });

      if (viewport.width < 760) {
        it('the folded menu opens from the keyboard and still fits', async () => {
          await page.goto(app.dashboard('/overview'));
          await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
          const nav = page.getByRole('navigation', { name: 'Sections' });
          assert.equal(await nav.getByRole('link', { name: 'Credits' }).isVisible(), false, 'folded away at first');
          const stops = await tabThrough(page);
          assert.ok(
            stops.some((stop) => stop.name === 'Menu'),
            'Tab reaches the menu button',
          );
          await page.getByRole('button', { name: 'Menu' }).focus();
          await page.keyboard.press('Enter');
          await nav.getByRole('link', { name: 'Credits' }).waitFor();
          assert.equal(await page.getByRole('button', { name: 'Menu' }).getAttribute('aria-expanded'), 'true');
          assert.deepEqual(await seriousViolations(page), [], 'open menu');
          await assertFits(page, 'open menu');
          const menuActions = [
            ...(await unreachableActions(page, 'header')),
            ...(await unreachableActions(page, 'nav')),
          ];
          assert.deepEqual(menuActions, [], 'open menu: actions out of reach');
          // Who is signed in, and as what, shows in the open menu (the header has no room for it).
          for (const text of ['owner@acme.example', 'admin'])
            assert.ok(await nav.getByText(text, { exact: true }).isVisible(), `the open menu shows ${text}`);
          // The sections follow the menu button and the header's controls: Tab to Credits, Enter opens it.
          for (
            let press = 0;
            press < 12 && (await page.evaluate(() => document.activeElement?.textContent)) !== 'Credits';
            press += 1
          )
            await page.keyboard.press('Tab');
          await page.keyboard.press('Enter');
          await page.getByRole('heading', { level: 1, name: 'Credits' }).waitFor();
        });
      }

      it('Tab reaches the sections and every page’s main actions, each with a visible focus ring', async () => {
        for (const section of dashboardPages) {
          // A fresh load (not a hash change) and only the keyboard from there: no earlier click changes what :focus-visible shows.
          await page.goto('about:blank');
          await page.goto(app.dashboard(section.path));
          await page.getByRole('heading', { level: 1, name: section.heading, exact: true }).waitFor();
          await settled(page);
          const stops = await tabThrough(page);
          const names = stops.map((stop) => stop.name);
          const expected = [/^Skip to content$/, /^Sign out$/, ...mainActions[section.name]];
          if (viewport.width >= 760) expected.push(...dashboardPages.map((other) => new RegExp(`^${other.link}$`)));
          else expected.push(/^Menu$/);
          for (const pattern of expected)
            assert.ok(
              names.some((name) => pattern.test(name)),
              `${section.name} at ${viewport.width}: Tab reaches ${pattern} (reached: ${names.join(' | ')})`,
            );
          const ringless = stops.filter((stop) => !stop.ring).map((stop) => `${stop.tag} "${stop.name}"`);
          assert.deepEqual(
            ringless,
            [],
            `${section.name} at ${viewport.width}: every focused element shows a focus ring`,
          );
        }
        // Enter on a focused section link opens it.
        if (viewport.width >= 760) {
          await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Conversions' }).focus();
          await page.keyboard.press('Enter');
          await page.getByRole('heading', { level: 1, name: 'Conversions' }).waitFor();
        }
      });

      it('logged no console error and reached no other origin', () => {
        assert.deepEqual(errors, []);
        assert.deepEqual(elsewhere, []);
      });
    });
  }
});
