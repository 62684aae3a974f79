import * as v from 'valibot';
import { allowEntryProblem } from './allow-list.ts';
import { logLevels } from './log-levels.ts';
import { portNames, type PortName } from './port-names.ts';
import { renamedSectionProblem } from './renamed-plugin-sections.ts';

/** A plugin is chosen by a built-in choice within its port (`sqlite`, for `store-sqlite`) or a module specifier (`./my-plugin.ts`, `@acme/visualizer-cdn`). */
const pluginChoice = v.pipe(v.string(), v.trim(), v.minLength(1, 'must name a plugin'));

/**
 * The built-in plugin of each port unless config names another; persistence follows `databaseUrl`,
 * and the renderer defaults to the first engine `render.engines` routes, else `mock` (see load.ts).
 */
export const defaultPlugins: Record<Exclude<PortName, 'persistence'>, string> = {
  clock: 'system',
  ids: 'random',
  limits: 'memory',
  cdn: 'local',
  renderer: 'mock',
  credentials: 'c2pa',
  queue: 'db',
  transport: 'http',
  scheduler: 'bree',
};

type PluginChoices = {
  persistence: v.OptionalSchema<typeof pluginChoice, undefined>;
  renderer: v.OptionalSchema<typeof pluginChoice, undefined>;
} & {
  [K in Exclude<keyof typeof defaultPlugins, 'renderer'>]: v.OptionalSchema<typeof pluginChoice, string>;
};
// Persistence follows `databaseUrl`, and the renderer the first engine routed (see load.ts).
const resolvedLater = new Set<PortName>(['persistence', 'renderer']);
const pluginChoices = Object.fromEntries(
  portNames.map((port) => [
    port,
    resolvedLater.has(port)
      ? v.optional(pluginChoice)
      : v.optional(pluginChoice, defaultPlugins[port as keyof typeof defaultPlugins]),
  ]),
) as PluginChoices;

/** The generation modes `render.engines` routes; core/services/engine-routes.ts checks they are the domain's. */
export const engineModes = ['virtual-try-on', 'room-visualizer'] as const;
export type EngineMode = (typeof engineModes)[number];

/** The engines a mode renders with, in the order they are tried: plugin choices, as `plugins.renderer` takes. */
const engineList = v.pipe(
  v.array(pluginChoice),
  v.minLength(1, 'must name at least one engine'),
  v.check((list) => new Set(list).size === list.length, 'names an engine twice'),
);

/** One engine's own limits (`render.engineLimits[name]`); unset fields take `render.engineDefaults`. */
const engineLimits = v.strictObject({
  /** The engine must answer within this, or the render moves to the next engine (`render_timeout`). */
  timeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  /** Calls to this engine in flight at once across every process sharing the `limits` store. */
  maxConcurrent: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  circuit: v.optional(
    v.strictObject({
      /** Consecutive transient failures that open the circuit. */
      failures: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
      /** How long an open circuit skips the engine before one probe is let through. */
      openMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
    }),
  ),
});

const millis = v.pipe(v.number(), v.integer(), v.minValue(0));

/** A rate: `burst` requests at once, `perSecond` on average (counted in windows: see rateWindow in core/ports/limits.ts). */
const rateLimit = v.strictObject({
  perSecond: v.pipe(v.number(), v.minValue(0.001)),
  burst: v.pipe(v.number(), v.integer(), v.minValue(1)),
});

export const configSchema = v.strictObject({
  port: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(65535)), 3000),
  host: v.optional(v.pipe(v.string(), v.minLength(1)), '127.0.0.1'),
  /** Base of every public URL (CDN, embed). Defaults to http://localhost:{port}. */
  publicUrl: v.optional(
    v.pipe(v.string(), v.url('must be an absolute URL'), v.regex(/^https?:\/\//, 'must be http or https')),
  ),
  dataDir: v.optional(v.pipe(v.string(), v.minLength(1)), './data'),
  /** Where `npm run build` wrote the browser bundles (scripts/build-bundles.ts); unset, each process builds them on first use. */
  bundlesDir: v.optional(v.pipe(v.string(), v.minLength(1))),
  /** `postgres://…` selects the Postgres store; unset means SQLite under the data dir. */
  databaseUrl: v.optional(
    v.pipe(v.string(), v.regex(/^(postgres|postgresql):\/\//, 'must start with postgres:// or postgresql://')),
  ),
  /** Postgres behind a transaction-mode pooler (PgBouncer): see docs/operations.md. */
  database: v.optional(
    v.strictObject({
      /** A URL straight to the server, for what needs a session: LISTEN for job wake-ups, `migrate`'s lock. */
      directUrl: v.optional(
        v.pipe(v.string(), v.regex(/^(postgres|postgresql):\/\//, 'must start with postgres:// or postgresql://')),
      ),
      /** `databaseUrl` is a transaction-mode pooler: without `directUrl`, workers poll and `migrate` refuses. */
      pooled: v.optional(v.boolean(), false),
    }),
    {},
  ),
  plugins: v.optional(v.strictObject(pluginChoices), {}),
  /** Options for each plugin, keyed by plugin name; each plugin validates its own section. A name a built-in had before it was renamed is refused. */
  pluginOptions: v.optional(
    v.record(
      v.pipe(
        v.string(),
        v.check(
          (section) => renamedSectionProblem(section) === null,
          (issue) => renamedSectionProblem(String(issue.input))!,
        ),
      ),
      v.unknown(),
    ),
    {},
  ),
  outbound: v.optional(
    v.strictObject({
      /** Hosts, IPs or CIDRs exempt from the private-address guard (e.g. a loopback test receiver), optionally `:port`. */
      allow: v.optional(
        v.array(
          v.pipe(
            v.string(),
            v.minLength(1),
            v.check(
              (entry) => allowEntryProblem(entry) === null,
              (issue) => `"${issue.input}" ${allowEntryProblem(String(issue.input))}`,
            ),
          ),
        ),
        [],
      ),
    }),
    {},
  ),
  webhooks: v.optional(
    v.strictObject({
      /** Delay before each attempt in ms; the first entry is the first attempt's delay. */
      retrySchedule: v.optional(
        v.pipe(v.array(millis), v.minLength(1, 'needs at least one attempt')),
        [0, 5_000, 300_000, 1_800_000, 7_200_000],
      ),
      /** A receiver must answer with a 2xx within this time. */
      timeoutMs: v.optional(millis, 10_000),
      /** After rotation, the old secret keeps signing this long. */
      secretGracePeriodMs: v.optional(millis, 24 * 3_600_000),
      /** An endpoint whose deliveries have all failed this long is disabled. */
      disableAfterFailingMs: v.optional(millis, 5 * 24 * 3_600_000),
      /** Cap on a receiver's Retry-After, so one answer cannot park a delivery for days. */
      maxRetryAfterMs: v.optional(millis, 3_600_000),
      maxEndpointsPerOrganization: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 16),
      /** Deliveries one process sends at once (across endpoints). */
      deliveryConcurrency: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(256)), 16),
      /** Deliveries in flight to one endpoint from one process. */
      maxConcurrentPerEndpoint: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 4),
      /** How often the scheduler sweeps for endpoints to disable. */
      sweepIntervalMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(10)), 60_000),
    }),
    {},
  ),
  workers: v.optional(
    v.strictObject({
      /** Render jobs one process runs at once; `serve` with 0 runs the API alone. */
      concurrency: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(64)), 4),
    }),
    {},
  ),
  uploads: v.optional(
    v.strictObject({
      /** How often the scheduler looks for uploaded photos that no generation in progress needs. */
      sweepIntervalMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(10)), 15 * 60_000),
      /** Only uploads older than this are swept, so a create still between its upload and its commit keeps its photo. */
      orphanAfterMs: v.optional(millis, 3_600_000),
    }),
    {},
  ),
  /** What the retention sweep deletes, and how: days to keep each kind of row, null to keep it for ever (docs/operations.md). */
  retention: v.optional(
    v.strictObject({
      /** Events with their deliveries and delivery attempts; an event whose delivery is still pending stays. */
      eventsDays: v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1))), 30),
      /** Null (for ever): the spec's idempotency rule 4, a key once bound to a generation always returns it. */
      idempotencyKeysDays: v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1))), null),
      /** Jobs the queue gave up (`visualizer jobs dead`). */
      deadJobsDays: v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1))), 90),
      sweepIntervalMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(10)), 3_600_000),
      /** Rows one batch deletes, in a transaction of its own. */
      batchSize: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10_000)), 1_000),
      /** Batches of each kind one sweep runs at most; the rest waits for the next sweep. */
      maxBatchesPerRun: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 100),
    }),
    {},
  ),
  /** How a visitor's erasure (`DELETE /v1/visitors/{visitorId}`) runs: batches, each a transaction of its own. */
  visitorErasures: v.optional(
    v.strictObject({
      /** Generations, identities or conversions one batch deletes or unlinks. */
      batchSize: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1_000)), 100),
      /** A pause between batches, leaving the database to other writers during a large erasure. */
      batchPauseMs: v.optional(millis, 0),
    }),
    {},
  ),
  render: v.optional(
    v.strictObject({
      /** Attempts at a render (and its image fetches) before a transient failure fails the generation. */
      maxAttempts: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(20)), 4),
      /** Delay before the second attempt; doubles each time. */
      retryBaseDelayMs: v.optional(millis, 2_000),
      /**
       * When a generation that needed more than one attempt is terminal, the images an earlier
       * attempt stored but never committed (it crashed or failed in between) are deleted this much
       * later: long after any straggling run of that attempt could still be writing them.
       */
      strayImagesAfterMs: v.optional(millis, 10 * 60_000),
      /**
       * Memory in MB that one process's image work (preparing inputs, the engine's call, encoding
       * the results) may hold at once; work waits its turn beyond it. At least 512: preparing one
       * image may take 256 MB for its decode plus its resize.
       */
      imageMemoryMb: v.optional(v.pipe(v.number(), v.integer(), v.minValue(512), v.maxValue(1_048_576)), 1024),
      /**
       * Calls to each render engine in flight at once across every process sharing the `limits`
       * store, unless `engineLimits[name].maxConcurrent` says otherwise: each engine has a cap of
       * its own. A render whose engines are all at their caps waits its turn in the queue.
       */
      maxConcurrentEngineCalls: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 16),
      /**
       * Each mode's engines, in the order a render tries them (docs/operations.md, "Render engines:
       * routing and fallback"); a mode not set renders with `[plugins.renderer]`.
       */
      engines: v.optional(
        v.strictObject(
          Object.fromEntries(engineModes.map((mode) => [mode, v.optional(engineList)])) as Record<
            EngineMode,
            v.OptionalSchema<typeof engineList, undefined>
          >,
        ),
        {},
      ),
      /** What every engine gets unless `engineLimits` names it. */
      engineDefaults: v.optional(
        v.strictObject({
          timeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 120_000),
          circuit: v.optional(
            v.strictObject({
              failures: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 5),
              openMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 30_000),
            }),
            {},
          ),
        }),
        {},
      ),
      /** Per engine, by the engine's name (or the choice naming it in `engines`): its timeout, cap and circuit. */
      engineLimits: v.optional(v.record(v.string(), engineLimits), {}),
    }),
    {},
  ),
  rateLimits: v.optional(
    v.strictObject({
      /** Generation creation per API key. */
      create: v.optional(rateLimit, { perSecond: 10, burst: 20 }),
      /** Every other /v1 request per API key (polling included). */
      read: v.optional(rateLimit, { perSecond: 50, burst: 100 }),
    }),
    {},
  ),
  /** Keyless browser collection (`POST /api/collect`): rate limits per client address and per visitor id. */
  conversions: v.optional(
    v.strictObject({
      collectPerIp: v.optional(rateLimit, { perSecond: 5, burst: 50 }),
      collectPerVisitor: v.optional(rateLimit, { perSecond: 0.5, burst: 10 }),
    }),
    {},
  ),
  /** Keyless widget endpoints (`/api/widgets/…`): rate limits per client address and per visitor id. */
  widgets: v.optional(
    v.strictObject({
      generationsPerIp: v.optional(rateLimit, { perSecond: 0.2, burst: 20 }),
      generationsPerVisitor: v.optional(rateLimit, { perSecond: 0.05, burst: 5 }),
      /** Widget lookups and result polling. */
      readsPerIp: v.optional(rateLimit, { perSecond: 20, burst: 60 }),
    }),
    {},
  ),
  /** Dashboard sign-in (`POST /v1/session`, `POST /v1/invitations/accept`): rate limits per account (email) and per client address. */
  accounts: v.optional(
    v.strictObject({
      /** 10 a minute per email address: slows guessing one account's password. */
      signInPerAccount: v.optional(rateLimit, { perSecond: 10 / 60, burst: 10 }),
      /** 30 a minute per address: slows trying many accounts from one place. */
      signInPerAddress: v.optional(rateLimit, { perSecond: 30 / 60, burst: 30 }),
    }),
    {},
  ),
  /** Take the client address for per-IP limits from the first `X-Forwarded-For` entry (only behind a proxy that overwrites it). */
  trustProxy: v.optional(v.boolean(), false),
  /** The demo shop at `/demo`: `enabled` true or false decides; unset, it is on only when nobody else can reach it (demo/availability.ts). */
  demo: v.optional(v.strictObject({ enabled: v.optional(v.boolean()) }), {}),
  /** On a new SQLite database, `serve` creates a development organization and prints its keys once. */
  createDevOrganization: v.optional(v.boolean(), true),
  shutdownTimeoutMs: v.optional(millis, 10_000),
  /**
   * A client must send a request's headers within this (slow-header attacks; at most requestTimeoutMs); else 408 `request_timeout`.
   * Above keepAliveTimeoutMs, so a kept-alive connection is never cut by the headers timer first.
   */
  headersTimeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(100)), 76_000),
  /** …and its whole body within this (a 14 MB upload on a slow link fits); else 408. */
  requestTimeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(100)), 300_000),
  /**
   * An idle kept-alive connection is closed after this. Longer than the load balancer's idle
   * timeout (AWS ALB 60 s; Google Cloud's needs 620 s), so the balancer, not us, closes it and
   * never sends a request down a connection we are closing (a 502).
   */
  keepAliveTimeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 75_000),
  /** Lines below this level are not logged (env `LOG_LEVEL`). */
  logLevel: v.optional(v.picklist(logLevels), 'info'),
  /** Prometheus metrics: `GET /metrics` on the API, and on `port` (env `VISUALIZER_METRICS_PORT`) a server of its own (the way to scrape a `worker`). */
  metrics: v.optional(
    v.strictObject({
      enabled: v.optional(v.boolean(), true),
      port: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(65535))),
      /** When set, a scrape must send `Authorization: Bearer <token>`. */
      token: v.optional(v.pipe(v.string(), v.minLength(16, 'must be at least 16 characters'))),
    }),
    {},
  ),
});

export type ConfigInput = v.InferInput<typeof configSchema>;
type ParsedConfig = v.InferOutput<typeof configSchema>;
export type Config = Omit<ParsedConfig, 'render'> & {
  publicUrl: string;
  plugins: Record<PortName, string>;
  /** `engines` with every mode set: a mode config leaves out renders with `[plugins.renderer]`. */
  render: Omit<ParsedConfig['render'], 'engines'> & { engines: Record<EngineMode, string[]> };
};
