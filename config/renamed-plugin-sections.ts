/**
 * `pluginOptions` sections of built-in plugins renamed on 2026-11-28, when each plugin got one name
 * (`<role>-<choice>`, the name of its folder). Config refuses the old names, saying the new one,
 * rather than ignoring options it would once have used; docs/plugins.md (Changelog) lists the same.
 */
export const renamedPluginSections: Readonly<Record<string, string>> = {
  sqlite: 'store-sqlite',
  postgres: 'store-postgres',
  system: 'clock-system',
  random: 'ids-random',
  memory: 'limits-memory',
  redis: 'limits-redis',
  'postgres-limits': 'limits-postgres',
  local: 'cdn-local',
  s3: 'cdn-s3',
  mock: 'renderer-mock',
  gemini: 'renderer-gemini',
  fashn: 'renderer-fashn',
  fal: 'renderer-fal',
  replicate: 'renderer-replicate',
  c2pa: 'credentials-c2pa',
  db: 'queue-db',
  pgboss: 'queue-pgboss',
  http: 'transport-http',
  bree: 'scheduler-bree',
};

/** Why an options section cannot be used, or null: its name is one a built-in plugin had before 2026-11-28. */
export function renamedSectionProblem(section: string): string | null {
  if (!Object.hasOwn(renamedPluginSections, section)) return null;
  return `the ${section} plugin is named ${renamedPluginSections[section]} since 2026-11-28: move these options to pluginOptions.${renamedPluginSections[section]} (docs/plugins.md, Changelog)`;
}
