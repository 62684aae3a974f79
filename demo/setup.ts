import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Cradle } from '../core/http/app-module-api.ts';
import { publishDemoImages } from './catalogue.ts';

/**
 * What the demo shop needs, created on its first request and remembered in `{dataDir}/demo.json`:
 * an organization with a store, its keys (the API key is kept so you can look at
 * `/v1/conversions` for the demo's orders; this file is development-only) and a try-on widget
 * that allows the service's own origin.
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

async function prepare({ config, tenants, widgets, persistence, cdn, logger }: DemoCradle): Promise<DemoState> {
  const file = path.join(config.dataDir, 'demo.json');
  const origin = new URL(config.publicUrl).origin;
  let state = await readState(file);
  const organization = state ? await persistence.organizations.get(state.organizationId) : null;

  if (!state || !organization) {
    const created = await tenants.createOrganization({
      name: 'Demo shop',
      credits: demoCredits,
      storeName: 'Northwind Threads (demo)',
    });
    state = {
      organizationId: created.organization.id,
      storeId: created.store.id,
      apiKey: created.apiKey.key,
      conversionKey: created.conversionKey.key,
      widgetId: '',
      origin: '',
    };
    logger.info('demo shop: created its organization', { organizationId: state.organizationId, file });
  } else if (organization.creditBalance < lowCredits) {
    await tenants.addCredits(state.organizationId, demoCredits, 'demo_top_up');
  }

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
