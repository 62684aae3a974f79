import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as v from 'valibot';
import { configSchema, defaultPlugins, type Config } from './schema.ts';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

/** Each variable, the config field it sets, and how its text becomes a value. */
const envMapping: Array<[variable: string, field: string[], parse: (text: string) => unknown]> = [
  ['PORT', ['port'], asNumber],
  ['HOST', ['host'], String],
  ['DATABASE_URL', ['databaseUrl'], String],
  ['DATABASE_DIRECT_URL', ['database', 'directUrl'], String],
  ['DATABASE_POOLED', ['database', 'pooled'], asBoolean],
  ['VISUALIZER_DATA_DIR', ['dataDir'], String],
  ['VISUALIZER_BUNDLES_DIR', ['bundlesDir'], String],
  ['VISUALIZER_PUBLIC_URL', ['publicUrl'], String],
  ['VISUALIZER_PERSISTENCE', ['plugins', 'persistence'], String],
  // A comma list: the engines of both modes, in order; the first is also `plugins.renderer`.
  ['VISUALIZER_RENDERER', ['plugins', 'renderer'], (text) => asList(text)[0] ?? text],
  ['VISUALIZER_RENDERER', ['render', 'engines', 'virtual-try-on'], asList],
  ['VISUALIZER_RENDERER', ['render', 'engines', 'room-visualizer'], asList],
  ['VISUALIZER_RENDERER_TRY_ON', ['render', 'engines', 'virtual-try-on'], asList],
  ['VISUALIZER_RENDERER_ROOM', ['render', 'engines', 'room-visualizer'], asList],
  ['VISUALIZER_CDN', ['plugins', 'cdn'], String],
  ['VISUALIZER_QUEUE', ['plugins', 'queue'], String],
  ['VISUALIZER_LIMITS', ['plugins', 'limits'], String],
  ['REDIS_URL', ['pluginOptions', 'limits-redis', 'url'], String],
  ['VISUALIZER_C2PA_CERTIFICATE_FILE', ['pluginOptions', 'credentials-c2pa', 'certificateFile'], String],
  ['VISUALIZER_C2PA_KEY_FILE', ['pluginOptions', 'credentials-c2pa', 'keyFile'], String],
  ['VISUALIZER_C2PA_CERTIFICATE', ['pluginOptions', 'credentials-c2pa', 'certificate'], String],
  ['VISUALIZER_C2PA_KEY', ['pluginOptions', 'credentials-c2pa', 'key'], String],
  ['VISUALIZER_WORKER_CONCURRENCY', ['workers', 'concurrency'], asNumber],
  ['VISUALIZER_OUTBOUND_ALLOW', ['outbound', 'allow'], asList],
  ['VISUALIZER_WEBHOOK_RETRY_SCHEDULE', ['webhooks', 'retrySchedule'], (text) => asList(text).map(asNumber)],
  ['VISUALIZER_DEMO', ['demo', 'enabled'], asBoolean],
  ['LOG_LEVEL', ['logLevel'], (text) => text.trim().toLowerCase()],
  ['VISUALIZER_METRICS_PORT', ['metrics', 'port'], asNumber],
  ['VISUALIZER_METRICS_TOKEN', ['metrics', 'token'], String],
];

function asNumber(text: string): unknown {
  return /^\s*-?\d+(\.\d+)?\s*$/.test(text) ? Number(text) : text;
}

/** Anything else stays text, which the schema then refuses naming the variable. */
function asBoolean(text: string): unknown {
  const word = text.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(word)) return true;
  if (['false', '0', 'no', 'off'].includes(word)) return false;
  return text;
}

function asList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

function setPath(target: Record<string, unknown>, field: string[], value: unknown) {
  let node = target;
  for (const key of field.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
  node[field.at(-1)!] = value;
}

function readConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`Cannot read config file ${file} (VISUALIZER_CONFIG): ${(error as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed;
  } catch (error) {
    throw new ConfigError(`Config file ${file} is not valid JSON: ${(error as Error).message}`);
  }
  throw new ConfigError(`Config file ${file} must hold a JSON object.`);
}

/**
 * Builds the configuration: schema defaults, then the JSON file named by `VISUALIZER_CONFIG`,
 * then environment variables. Throws a ConfigError naming every invalid field and where it came from.
 */
export function loadConfig(env: Env = process.env, overrides: Record<string, unknown> = {}): Config {
  const input: Record<string, unknown> = env.VISUALIZER_CONFIG ? readConfigFile(env.VISUALIZER_CONFIG) : {};
  const sources = new Map<string, string>();
  for (const [variable, field, parse] of envMapping) {
    const text = env[variable];
    if (text === undefined || text === '') continue;
    setPath(input, field, parse(text));
    sources.set(field.join('.'), variable);
  }
  for (const [key, value] of Object.entries(overrides)) input[key] = value;

  const result = v.safeParse(configSchema, input);
  if (!result.success) {
    const lines = result.issues.map((issue) => {
      const field = v.getDotPath(issue) ?? '(config)';
      // A list's entry (outbound.allow.1) came from the variable that set the whole list.
      const source =
        sources.get(field) ??
        sources.get(field.replace(/\.\d+$/, '')) ??
        (env.VISUALIZER_CONFIG ? `config file ${env.VISUALIZER_CONFIG}` : 'config');
      return `  ${field} (${source}): ${issue.message}`;
    });
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const config = result.output;
  const { engines } = config.render;
  // Unset, the renderer port is the first engine routed, so a config that routes every mode loads no other.
  const renderer =
    config.plugins.renderer ??
    engines['virtual-try-on']?.[0] ??
    engines['room-visualizer']?.[0] ??
    defaultPlugins.renderer;
  return {
    ...config,
    render: {
      ...config.render,
      engines: {
        'virtual-try-on': engines['virtual-try-on'] ?? [renderer],
        'room-visualizer': engines['room-visualizer'] ?? [renderer],
      },
    },
    dataDir: path.resolve(config.dataDir),
    // Without its trailing slashes, whatever set it: URLs are built as `${publicUrl}/cdn/…`, and one
    // with `//` is not what the CDN hands out, so the service would not know its own images.
    publicUrl: (config.publicUrl ?? `http://localhost:${config.port}`).replace(/\/+$/, ''),
    plugins: {
      ...config.plugins,
      renderer,
      persistence: config.plugins.persistence ?? (config.databaseUrl ? 'postgres' : 'sqlite'),
    },
  };
}
