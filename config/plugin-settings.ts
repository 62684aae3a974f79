import path from 'node:path';
import { ConfigError } from './load.ts';
import type { Config } from './schema.ts';

/**
 * The application's settings a plugin may take as options of its own: a plugin is handed only its
 * validated options, never the whole config, so what it needs of these is filled into them.
 */
const sharedSettings = {
  dataDir: { source: 'dataDir, VISUALIZER_DATA_DIR', value: (config: Config) => config.dataDir },
  publicUrl: { source: 'publicUrl, VISUALIZER_PUBLIC_URL', value: (config: Config) => config.publicUrl },
  databaseUrl: { source: 'databaseUrl, DATABASE_URL', value: (config: Config) => config.databaseUrl },
  'database.directUrl': {
    source: 'database.directUrl, DATABASE_DIRECT_URL',
    value: (config: Config) => config.database.directUrl,
  },
  'database.pooled': { source: 'database.pooled, DATABASE_POOLED', value: (config: Config) => config.database.pooled },
} satisfies Record<string, { source: string; value(config: Config): unknown }>;

export type SharedSetting = keyof typeof sharedSettings;

/**
 * How one option is fed: `from` sets it to a shared setting's value (absent when the setting is
 * unset), and the plugin's own section may not set it; `underDataDir` resolves the path the section
 * gives (or this default) against the data directory, as relative paths in config always were.
 */
export type OptionFeed = { from: SharedSetting } | { underDataDir: string };

/** A plugin's options fed from shared settings, by option name. */
export type SharedSettingFeeds = Readonly<Record<string, OptionFeed>>;

/**
 * Which shared setting feeds which option of each built-in plugin: the one place that says so. A
 * third-party plugin declares its own feeds as `sharedSettings` in its definition (docs/plugins.md).
 */
export const builtinPluginFeeds: Readonly<Record<string, SharedSettingFeeds>> = {
  'store-sqlite': { file: { underDataDir: 'visualizer.db' } },
  'store-postgres': {
    url: { from: 'databaseUrl' },
    directUrl: { from: 'database.directUrl' },
    pooled: { from: 'database.pooled' },
  },
  'limits-postgres': { url: { from: 'databaseUrl' } },
  'cdn-local': { dir: { underDataDir: 'cdn' }, publicBaseUrl: { from: 'publicUrl' } },
  'credentials-c2pa': { developmentCertificateDir: { from: 'dataDir' } },
};

/**
 * `pluginOptions[name]` with the shared settings `feeds` names filled in, for the plugin's
 * `configSchema` to validate. A section that is not an object is returned as it is, for the schema
 * to refuse; one that sets an option a shared setting feeds is refused here, naming the setting.
 */
export function fillSharedSettings(name: string, section: unknown, feeds: SharedSettingFeeds, config: Config): unknown {
  if (Object.keys(feeds).length === 0) return section;
  if (section !== undefined && (typeof section !== 'object' || section === null || Array.isArray(section)))
    return section;
  const filled: Record<string, unknown> = { ...(section as Record<string, unknown> | undefined) };
  for (const [option, feed] of Object.entries(feeds)) {
    if ('underDataDir' in feed) {
      const given = filled[option] ?? feed.underDataDir;
      // Anything but a path is left for the schema to refuse with the option's own message.
      if (typeof given === 'string' && given !== '') filled[option] = path.resolve(config.dataDir, given);
      continue;
    }
    const { source, value } = sharedSettings[feed.from];
    if (Object.hasOwn(filled, option))
      throw new ConfigError(
        `Invalid configuration:\n  pluginOptions.${name}.${option}: set from ${source} for the whole service; set that instead.`,
      );
    const shared = value(config);
    if (shared !== undefined) filled[option] = shared;
  }
  return filled;
}
