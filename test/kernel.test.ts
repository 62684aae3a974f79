import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../config/load.ts';
import { createKernel } from '../core/kernel.ts';
import { silentLogger } from '../core/logger.ts';
import { definePlugin, type AnyPlugin, type Clock } from '../kit/plugin.ts';
import { builtinPlugins } from '../plugins/catalogue.ts';

describe('kernel and plugins', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-kernel-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const kernel = (overrides: Record<string, unknown>, extra: Record<string, AnyPlugin> = {}) => {
    const catalogue = {
      ...builtinPlugins,
      ...Object.fromEntries(Object.entries(extra).map(([name, plugin]) => [name, async () => ({ default: plugin })])),
    };
    return createKernel(loadConfig({ VISUALIZER_DATA_DIR: dataDir }, overrides), {
      catalogue,
      logger: silentLogger,
      cwd: import.meta.dirname,
    });
  };

  it('wires the built-in plugins chosen by name', async () => {
    const container = await kernel({});
    assert.equal(container.cradle.persistence.capabilities.embedded, true, 'SQLite keeps its schema current itself');
    assert.match(container.cradle.ids.id('agen_'), /^agen_[0-9A-Za-z]{24}$/);
    await container.dispose();
  });

  it('loads a third-party plugin by module path, with its own validated options', async () => {
    const container = await kernel({
      plugins: { clock: './fixtures/frozen-clock-plugin.ts' },
      pluginOptions: { 'frozen-clock': { at: '2030-01-02T03:04:05.678Z' } },
    });
    await container.cradle.persistence.migrate();
    const { organization } = await container.cradle.tenants.createOrganization({ name: 'Frozen', credits: 0 });
    assert.equal(organization.createdAt, Date.parse('2030-01-02T03:04:05.678Z'), 'core services use the plugin');
    await container.dispose();
  });

  it('hands a plugin only its options, with the shared settings it asks for filled in', async () => {
    let seen: Record<string, unknown> | undefined;
    const recording = definePlugin<{ dir: string; publicBaseUrl: string; databaseUrl?: string; label: string }, 'cdn'>({
      name: 'cdn-recording',
      provides: ['cdn'],
      sharedSettings: {
        dir: { underDataDir: 'recorded' },
        publicBaseUrl: { from: 'publicUrl' },
        databaseUrl: { from: 'databaseUrl' },
      },
      async register(context) {
        seen = { ...context };
        const local = (await builtinPlugins['cdn-local']!()).default;
        const { cdn } = await local.register({
          ...context,
          options: { dir: context.options.dir, publicBaseUrl: 'https://x.example' },
        });
        return { cdn: cdn! };
      },
    });
    const container = await kernel(
      {
        publicUrl: 'https://viz.example/',
        plugins: { cdn: 'recording' },
        pluginOptions: { 'cdn-recording': { label: 'a' } },
      },
      { 'cdn-recording': recording },
    );
    assert.deepEqual(Object.keys(seen!).sort(), ['logger', 'options', 'outbound', 'port'], 'no config');
    assert.deepEqual(seen!.options, {
      label: 'a',
      dir: path.join(dataDir, 'recorded'),
      publicBaseUrl: 'https://viz.example',
    });
    await container.dispose();

    await assert.rejects(
      kernel(
        {
          plugins: { cdn: 'recording' },
          pluginOptions: { 'cdn-recording': { publicBaseUrl: 'https://other.example' } },
        },
        { 'cdn-recording': recording },
      ),
      /pluginOptions\.cdn-recording\.publicBaseUrl: set from publicUrl, VISUALIZER_PUBLIC_URL/,
    );
    // A built-in's are in config/plugin-settings.ts: the store's URL is DATABASE_URL, and only that.
    await assert.rejects(
      kernel({
        databaseUrl: 'postgres://127.0.0.1:9/visualizer',
        pluginOptions: { 'store-postgres': { url: 'postgres://127.0.0.1:9/other' } },
      }),
      /pluginOptions\.store-postgres\.url: set from databaseUrl, DATABASE_URL for the whole service; set that instead/,
    );
  });

  it('names the field when a plugin cannot be used', async () => {
    await assert.rejects(kernel({ plugins: { clock: './fixtures/missing.ts' } }), /plugins\.clock: cannot load plugin/);
    await assert.rejects(
      kernel({ plugins: { clock: 'no-such-package-visualizer' } }),
      /plugins\.clock: cannot load plugin 'no-such-package-visualizer'/,
    );
    await assert.rejects(
      kernel({ plugins: { clock: './fixtures/not-a-clock-plugin.ts' } }),
      /plugins\.clock: plugin 'not-a-clock' provides ids, not clock/,
    );
    await assert.rejects(
      kernel({
        plugins: { clock: './fixtures/frozen-clock-plugin.ts' },
        pluginOptions: { 'frozen-clock': { at: 'soon' } },
      }),
      /pluginOptions\.frozen-clock\.at: must be an ISO timestamp/,
    );
    await assert.rejects(kernel({ plugins: { persistence: 'postgres' } }), /needs DATABASE_URL/);
  });

  it('refuses a plugin whose register() does not return a port it provides', async () => {
    const forgetful = { name: 'clock-forgetful', provides: ['clock'], register: () => ({}) } as AnyPlugin;
    await assert.rejects(
      kernel({ plugins: { clock: 'forgetful' } }, { 'clock-forgetful': forgetful }),
      /plugins\.clock: plugin 'clock-forgetful' says it provides clock but its register\(\) returned no clock/,
    );
  });

  it('gives a plugin the ports before its own, and refuses a later one by name', async () => {
    let seen: Clock | undefined;
    const counting = definePlugin({
      name: 'ids-counting',
      provides: ['ids'],
      register({ port }) {
        seen = port('clock');
        let next = 0;
        return {
          ids: {
            id: (prefix: string) => `${prefix}${String(next++).padStart(24, '0')}`,
            secret: (length: number) => 'x'.repeat(length),
          },
        };
      },
    });
    const container = await kernel({ plugins: { ids: 'counting' } }, { 'ids-counting': counting });
    assert.equal(seen, container.cradle.clock, 'the clock registered before it');
    assert.match(container.cradle.ids.id('agen_'), /^agen_0{20}\d{4}$/, "the container resolves the plugin's ids");
    await container.dispose();

    const early = definePlugin({
      name: 'clock-early',
      provides: ['clock'],
      register({ port }) {
        port('queue');
        return { clock: { now: () => 0 } };
      },
    });
    await assert.rejects(
      kernel({ plugins: { clock: 'early' } }, { 'clock-early': early }),
      /plugins\.clock: plugin 'clock-early' asked for the queue port, which is not registered yet/,
    );
  });

  it('disposes each plugin once on shutdown, the later ones first', async () => {
    const disposed: string[] = [];
    const tracked = (name: string, plugin: AnyPlugin): AnyPlugin => ({
      ...plugin,
      name,
      async register(context) {
        const provided = await plugin.register(context);
        return {
          ...provided,
          dispose: async () => {
            await provided.dispose?.();
            disposed.push(name);
          },
        };
      },
    });
    const clock = (await builtinPlugins['clock-system']!()).default;
    const ids = (await builtinPlugins['ids-random']!()).default;
    const container = await kernel(
      { plugins: { clock: 'tracked', ids: 'tracked' } },
      { 'clock-tracked': tracked('clock-tracked', clock), 'ids-tracked': tracked('ids-tracked', ids) },
    );
    assert.deepEqual(disposed, []);
    await Promise.all([container.dispose(), container.dispose()]);
    await container.dispose();
    assert.deepEqual(disposed, ['ids-tracked', 'clock-tracked']);
  });

  it('disposes the plugins already started when a later one cannot start', async () => {
    const disposed: string[] = [];
    const clock = definePlugin({
      name: 'clock-once',
      provides: ['clock'],
      register: () => ({ clock: { now: () => 0 }, dispose: () => void disposed.push('clock-once') }),
    });
    const broken = definePlugin({
      name: 'cdn-broken',
      provides: ['cdn'],
      register: (): never => {
        throw new Error('no disk');
      },
    });
    await assert.rejects(
      kernel({ plugins: { clock: 'once', cdn: 'broken' } }, { 'clock-once': clock, 'cdn-broken': broken }),
      /plugins\.cdn: plugin 'cdn-broken' could not start: no disk/,
    );
    assert.deepEqual(disposed, ['clock-once']);
  });
});
