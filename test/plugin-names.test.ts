import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../config/load.ts';
import { builtinPluginFeeds } from '../config/plugin-settings.ts';
import { builtinPluginName, pluginRoles, portNames } from '../config/port-names.ts';
import { renamedPluginSections } from '../config/renamed-plugin-sections.ts';
import { defaultPlugins } from '../config/schema.ts';
import { builtinPlugins } from '../plugins/catalogue.ts';

const root = path.resolve(import.meta.dirname, '..');
const catalogueSource = readFileSync(path.join(root, 'plugins/catalogue.ts'), 'utf8');

/**
 * One name per built-in plugin (docs/plugins.md, "One name per plugin"): its folder, its catalogue
 * key and its `plugin.name` are one `<role>-<choice>`, which config reaches by the choice alone.
 */
describe('plugin names', () => {
  it("every catalogue entry's key, folder and plugin.name agree, and the key is <role>-<choice> of a port it provides", async () => {
    for (const [key, load] of Object.entries(builtinPlugins)) {
      const folder = new RegExp(`'${key}': \\(\\) => import\\('\\./([^/']+)/index\\.ts'\\)`).exec(catalogueSource)?.[1];
      assert.equal(folder, key, `the catalogue loads ${key} from plugins/${key}/index.ts`);
      const plugin = (await load()).default;
      assert.equal(plugin.name, key, `plugins/${key}/index.ts names its plugin ${key}`);
      assert.ok(
        plugin.provides.some((port) => key.startsWith(`${pluginRoles[port]}-`)),
        `${key} starts with the role of a port it provides (${plugin.provides.join(', ')})`,
      );
    }
  });

  it('every plugin folder is in the catalogue; the rest are libraries without a plugin', () => {
    const folders = readdirSync(path.join(root, 'plugins'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    const withPlugin = folders.filter((folder) => {
      const index = path.join(root, 'plugins', folder, 'index.ts');
      return existsSync(index) && /\bdefinePlugin\(/.test(readFileSync(index, 'utf8'));
    });
    assert.deepEqual(withPlugin.sort(), Object.keys(builtinPlugins).sort());
    for (const folder of folders.filter((name) => !withPlugin.includes(name))) {
      const sources = readdirSync(path.join(root, 'plugins', folder), { recursive: true, encoding: 'utf8' });
      for (const file of sources.filter((name) => name.endsWith('.ts')))
        assert.doesNotMatch(
          readFileSync(path.join(root, 'plugins', folder, file), 'utf8'),
          /\bdefinePlugin\(/,
          `plugins/${folder}/${file}: a plugin lives in its own folder's index.ts`,
        );
    }
  });

  it("each port's default and the store choices resolve to built-in plugins", () => {
    for (const port of portNames.filter((name) => name !== 'persistence'))
      assert.ok(builtinPlugins[builtinPluginName(port, defaultPlugins[port as keyof typeof defaultPlugins])], port);
    assert.ok(builtinPlugins[builtinPluginName('persistence', loadConfig({}).plugins.persistence)]);
    const postgres = loadConfig({ DATABASE_URL: 'postgres://localhost/x', VISUALIZER_LIMITS: 'postgres' });
    assert.equal(builtinPluginName('persistence', postgres.plugins.persistence), 'store-postgres');
    assert.equal(builtinPluginName('limits', postgres.plugins.limits), 'limits-postgres');
  });

  it("feeds shared settings only into built-ins' own options, from the one table in config/plugin-settings.ts", async () => {
    for (const [name, feeds] of Object.entries(builtinPluginFeeds)) {
      const plugin = (await builtinPlugins[name]!()).default;
      const entries = (plugin.configSchema as { entries?: Record<string, unknown> } | undefined)?.entries ?? {};
      for (const option of Object.keys(feeds)) assert.ok(option in entries, `${name}'s configSchema has ${option}`);
    }
    for (const [name, load] of Object.entries(builtinPlugins))
      assert.equal(
        (await load()).default.sharedSettings,
        undefined,
        `${name}'s feeds are in the table, not its definition`,
      );
  });

  it("documents the built-ins' feeds in docs/plugins.md, Shared settings", () => {
    const docs = readFileSync(path.join(root, 'docs/plugins.md'), 'utf8');
    const section = docs.slice(docs.indexOf('### Shared settings'), docs.indexOf('## Loading a plugin'));
    for (const [name, feeds] of Object.entries(builtinPluginFeeds)) {
      const row = section.split('\n').find((line) => line.startsWith(`| \`${name}\``));
      assert.ok(row, `a row for ${name}`);
      for (const option of Object.keys(feeds))
        assert.ok(row.includes(`\`${option}\``), `${name}'s row names ${option}`);
    }
  });

  it('refuses an options section under a name from before 2026-11-28, naming the new one', () => {
    for (const [old, now] of Object.entries(renamedPluginSections)) {
      assert.ok(builtinPlugins[now], `${old} was renamed to a built-in plugin (${now})`);
      assert.throws(
        () => loadConfig({}, { pluginOptions: { [old]: {} } }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.message.includes(`pluginOptions.${old} (config): the ${old} plugin is named ${now} since 2026-11-28`),
      );
    }
    assert.deepEqual(loadConfig({}, { pluginOptions: { 'queue-db': { leaseMs: 5 } } }).pluginOptions, {
      'queue-db': { leaseMs: 5 },
    });
  });

  it("lists every renamed section in docs/plugins.md's changelog", () => {
    const docs = readFileSync(path.join(root, 'docs/plugins.md'), 'utf8');
    const changelog = docs.slice(docs.indexOf('\n## Changelog'));
    assert.ok(changelog.includes('2026-11-28'));
    for (const [old, now] of Object.entries(renamedPluginSections))
      assert.match(changelog, new RegExp(`\\| \`pluginOptions\\.${old}\` +\\| \`pluginOptions\\.${now}\` +\\|`));
  });
});
