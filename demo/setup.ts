import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Cradle } from '../core/http/app-module-api.ts';
import { developmentAdminEmail } from '../cli/development-sign-in.ts';
import { publishDemoImages } from './catalogue.ts';

/**
 * What the demo shop needs, created on its first request and remembered in `{dataDir}/demo.json`:
 * a store in the development organization (so its try-ons and orders show on the dashboard the
 * printed sign-in link opens), or in an organization of its own on a data directory without one;
 * its keys (the API key is kept so you can look at `/v1/conversions` for the demo's orders; this
 * file is development-only) and a try-on widget that allows the service's own origin.
 */
export interface DemoState {
  organizationId: string;
  storeId: string;
  apiKey: string;
  conversionKey: string;
  widgetId: string;
  /** The origin the widget allows; a new one (another port) gets a new widget. */
  origin: string;
}

const demoCredits = 1_000;
/** Below this balance the demo organization is topped up again. */
const lowCredits = 50;
const storeName = 'Northwind Threads (demo)';

type DemoCradle = Pick<Cradle, 'config' | 'tenants' | 'widgets' | 'persistence' | 'cdn' | 'logger'>;

const states = new WeakMap<object, Promise<DemoState>>();

/** The demo's organization, keys and widget (created or repaired once per process), with its images in the CDN. */
export function demoState(cradle: DemoCradle): Promise<DemoState> {
  const key = cradle.config;
  let state = states.get(key);
  if (!state) {
    state = prepare(cradle);
    states.set(key, state);
    state.catch(() => states.delete(key));
  }
  return state;
}

async function readState(file: string): Promise<DemoState | null> {
  try {
    const state = JSON.parse(await readFile(file, 'utf8')) as DemoState;
    return state && typeof state.organizationId === 'string' && typeof state.apiKey === 'string' ? state : null;
  } catch {
    return null;
  }
}

async function writeState(file: string, state: DemoState) {
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, file);
}

/** The organization `serve` created on a new database, found by its first admin; null without one. */
async function developmentOrganization({ persistence }: Pick<DemoCradle, 'persistence'>) {
  const admin = await persistence.users.findByEmail(developmentAdminEmail);
  return admin ? persistence.organizations.get(admin.organizationId) : null;
}

/** A store of the demo's own, with its keys, in an organization that exists already. */
async function setUpIn({ tenants }: DemoCradle, organizationId: string): Promise<DemoState> {
  const store = await tenants.createStore(organizationId, { name: storeName });
  const apiKey = await tenants.createKey(organizationId, 'secret', 'demo shop');
  const conversionKey = await tenants.createKey(organizationId, 'conversion', 'demo shop');
  return {
    organizationId,
    storeId: store.id,
    apiKey: apiKey.key,
    conversionKey: conversionKey.key,
    widgetId: '',
    origin: '',
  };
}

/** Without a development organization (a data dir set up with `orgs create`), the demo keeps one of its own. */
async function setUpAlone({ tenants }: DemoCradle): Promise<DemoState> {
  const created = await tenants.createOrganization({ name: 'Demo shop', credits: demoCredits, storeName });
  return {
    organizationId: created.organization.id,
    storeId: created.store.id,
    apiKey: created.apiKey.key,
    conversionKey: created.conversionKey.key,
    widgetId: '',
    origin: '',
  };
}

async function prepare(cradle: DemoCradle): Promise<DemoState> {
  const { config, tenants, widgets, persistence, cdn, logger } = cradle;
  const file = path.join(config.dataDir, 'demo.json');
  const origin = new URL(config.publicUrl).origin;
  let state = await readState(file);
  const development = await developmentOrganization(cradle);
  const organization = state ? await persistence.organizations.get(state.organizationId) : null;
  // An older data dir's demo kept an organization of its own: it moves into the development one,
  // so its new orders show where the sign-in link leads (the old ones stay with the old organization).
  if (!state || !organization || (development && organization.id !== development.id)) {
    state = development ? await setUpIn(cradle, development.id) : await setUpAlone(cradle);
    logger.info('demo shop: set up its store', { organizationId: state.organizationId, file });
  }
  const balance = (await persistence.organizations.get(state.organizationId))?.creditBalance ?? 0;
  if (balance < lowCredits) await tenants.addCredits(state.organizationId, demoCredits, 'demo_top_up');

  const widget = state.widgetId ? await persistence.widgets.get(state.organizationId, state.widgetId) : null;
  if (!widget || state.origin !== origin || widget.allowedOrigins.indexOf(origin) < 0) {
    const created = await widgets.create(state.organizationId, {
      storeId: state.storeId,
      mode: 'virtual-try-on',
      imageSize: '1K',
      allowedOrigins: [origin],
      dailyGenerationCap: 500,
      dailyCreditCap: null,
    });
    state = { ...state, widgetId: created.id, origin };
  }
  await writeState(file, state);
  await publishDemoImages(cdn);
  return state;
}

/** The banner's line on where the demo's try-ons and orders show on the dashboard. */
export async function demoDashboardLine(cradle: Pick<DemoCradle, 'config' | 'persistence'>): Promise<string> {
  const development = await developmentOrganization(cradle);
  if (development)
    return `Demo shop's try-ons and orders: on the dashboard of the organization ${development.name} (${development.id}), which the sign-in link below opens.`;
  const file = path.join(cradle.config.dataDir, 'demo.json');
  const state = await readState(file);
  const own = state ? await cradle.persistence.organizations.get(state.organizationId) : null;
  const where = own ? own.id : `its id is in ${file} once the shop is first opened`;
  return `Demo shop's try-ons and orders: in an organization of its own, "Demo shop" (${where}). To see them on the dashboard: npx visualizer users invite --org ${own?.id ?? 'ORG_ID'} --email you@example.com --role admin`;
}
