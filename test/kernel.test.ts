import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../config/load.ts';
import { createKernel } from '../core/kernel.ts';
import { silentLogger } from '../core/logger.ts';
import { builtinPlugins } from '../plugins/catalogue.ts';

describe('kernel and plugins', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-kernel-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const kernel = (overrides: Record<string, unknown>) =>
    createKernel(loadConfig({ VISUALIZER_DATA_DIR: dataDir }, overrides), { catalogue: builtinPlugins, logger: silentLogger, cwd: import.meta.dirname });

  it('wires the built-in plugins chosen by name', async () => {
    const container = await kernel({});
    assert.equal(container.cradle.persistence.dialect, 'sqlite');
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

  it('names the field when a plugin cannot be used', async () => {
    await assert.rejects(kernel({ plugins: { clock: './fixtures/missing.ts' } }), /plugins\.clock: cannot load plugin/);
    await assert.rejects(kernel({ plugins: { clock: 'no-such-package-visualizer' } }), /plugins\.clock: cannot load plugin 'no-such-package-visualizer'/);
    await assert.rejects(kernel({ plugins: { clock: './fixtures/not-a-clock-plugin.ts' } }), /plugins\.clock: plugin 'not-a-clock' provides ids, not clock/);
    await assert.rejects(kernel({ plugins: { clock: './fixtures/frozen-clock-plugin.ts' }, pluginOptions: { 'frozen-clock': { at: 'soon' } } }), /pluginOptions\.frozen-clock\.at: must be an ISO timestamp/);
    await assert.rejects(kernel({ plugins: { persistence: 'postgres' } }), /needs DATABASE_URL/);
  });
});
