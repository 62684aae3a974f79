/**
 * Shared limits on the hot path: GET /v1/generations/{id} and POST /v1/generations with the API
 * keys' rate limits counted in memory (one process), in Redis and in Postgres, in one run.
 *
 * One app (one SQLite database, the same keys and generations) answers on three servers that
 * differ only in the `limits` their routes count with: the app's own memory limits, and a Redis
 * and a Postgres adapter as `VISUALIZER_LIMITS=redis|postgres` would make them (a throwaway
 * redis-server and Postgres cluster on loopback, as the tests start them). The servers take turns
 * in rounds (support/throughput.ts), so drift on the machine hits all three alike.
 *
 * The budgets are the defaults (read 50/s burst 100, create 10/s burst 20 per key), really
 * enforced: the load cycles over many API keys, each loaded at about `BENCH_LIMITS_KEY_LOAD` (0.5)
 * of its budget on the memory server (the count of keys is set from a short calibration run), so
 * every key's accounting happens and no request is refused. With one key and unlimited budgets a
 * store that reserves points ahead would look free; with keys loaded below their budget it pays
 * what a busy API with many customers pays. `store calls/req` is what the shared store served per
 * request: Redis script calls (INFO commandstats), Postgres transactions (the adapter's upserts of
 * `limit_rates` are the only writes to that cluster while the load runs).
 *
 *   node --import tsx bench/limits.ts
 */
import { asValue } from 'awilix';
import pg from 'pg';
import { Redis } from 'ioredis';
import { appModules } from '../cli/app-modules.ts';
import { freePort } from '../core/http/free-port.ts';
import { startHttpServer, type RunningServer } from '../core/http/server.ts';
import { silentLogger } from '../core/logger.ts';
import { createMemoryLimits } from '../plugins/limits-memory/index.ts';
import { createPostgresLimits } from '../plugins/limits-postgres/index.ts';
import { createRedisLimits } from '../plugins/limits-redis/index.ts';
import { openPostgres } from '../plugins/store-kysely/postgres.ts';
import { startPostgresTestServer } from '../test/support/postgres-server.ts';
import { startRedisServer } from '../test/support/redis-server.ts';
import { startBenchApp } from './support/app.ts';
import { runLoad, type LoadRequest } from './support/load.ts';
import { fixed, runBenchmark, sized, smoke, summaryRow, table, type SummaryRow } from './support/report.ts';
import { compareThroughput, concurrency, setupLine, sliceRatio, throughputTable } from './support/throughput.ts';

type BenchApp = Awaited<ReturnType<typeof startBenchApp>>;
type Store = 'memory' | 'redis' | 'postgres';

/** Each key's share of its budget on the memory server. */
const keyLoad = Number(process.env.BENCH_LIMITS_KEY_LOAD ?? 0.5);
/** Keys made up front; a calibration run picks how many of them a route's load cycles over. */
const keyPool = sized(1500, 200);
const calibration = sized({ warmupMs: 1_000, durationMs: 2_000 }, { warmupMs: 200, durationMs: 500 });

/** Counts the requests a server answered, to divide the store's calls by. */
function counted() {
  let served = 0;
  return {
    wrapFetch: (fetch: (request: Request) => Response | Promise<Response>) => (request: Request) => {
      served += 1;
      return fetch(request);
    },
    served: () => served,
  };
}

/** Rate operations the shared stores have served so far. */
async function redisScriptCalls(redis: Redis): Promise<number> {
  const info = await redis.info('commandstats');
  return [...info.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)].reduce(
    (total, match) => total + Number(match[1]),
    0,
  );
}
async function postgresWrites(pool: pg.Pool): Promise<number> {
  // The next transaction id: each upsert is a transaction of its own; reading it takes none.
  const { rows } = await pool.query<{ next: string }>('select pg_snapshot_xmax(pg_current_snapshot())::text as next');
  return Number(rows[0]!.next);
}

runBenchmark(
  async () => {
    const opened: Array<() => Promise<unknown>> = [];
    try {
      const redisServer = await startRedisServer();
      opened.push(() => redisServer.stop());
      const postgresServer = await startPostgresTestServer();
      opened.push(() => postgresServer.stop());
      const databaseUrl = await postgresServer.createDatabase();
      // The limits tables come with the store's migrations (0017), as `visualizer migrate` makes them.
      const store = openPostgres(databaseUrl);
      await store.migrate();
      await store.close();

      // The default budgets, enforced (the bench app's are unlimited unless told otherwise).
      const bench: BenchApp = await startBenchApp({ config: { rateLimits: {} } });
      opened.push(() => bench.close());
      const rules = bench.app.container.cradle.config.rateLimits;

      const redisLimits = await createRedisLimits(
        { url: redisServer.url, keyPrefix: 'visualizer:limits:', commandTimeoutMs: 1_000 },
        silentLogger,
      );
      opened.push(() => redisLimits.close());
      const postgresLimits = createPostgresLimits(databaseUrl, silentLogger);
      opened.push(() => postgresLimits.close());
      const redisStats = new Redis(redisServer.url);
      opened.push(() => redisStats.quit());
      const postgresStats = new pg.Pool({ connectionString: databaseUrl, max: 1 });
      opened.push(() => postgresStats.end());

      // The same container (database, keys, services) behind three servers alike; only `limits` differs.
      const origins = {} as Record<Store, string>;
      const served = {} as Record<Store, () => number>;
      for (const [store, limits] of [
        ['memory', createMemoryLimits()],
        ['redis', redisLimits],
        ['postgres', postgresLimits],
      ] as const) {
        const scope = bench.app.container.createScope();
        scope.register({ limits: asValue(limits) });
        const counter = counted();
        const server: RunningServer = await startHttpServer(scope, {
          port: await freePort(),
          host: '127.0.0.1',
          modules: appModules,
          wrapFetch: counter.wrapFetch,
        });
        opened.push(() => server.close());
        origins[store] = server.url;
        served[store] = counter.served;
      }

      // Keys of their own organizations, each with a generation to read.
      const keys: Array<{ headers: Record<string, string>; generationId: string }> = [];
      for (let n = 0; n < keyPool; n++) {
        const { apiKey } = await bench.app.tenants.createOrganization({ name: `Bench ${n}`, credits: 1_000_000_000 });
        const headers = { authorization: `Bearer ${apiKey.key}`, 'content-type': 'application/json' };
        const created = await fetch(`${bench.app.url}/v1/generations`, {
          method: 'POST',
          headers,
          body: bench.createBody,
        });
        if (created.status !== 202) throw new Error(`create answered ${created.status}: ${await created.text()}`);
        keys.push({ headers, generationId: ((await created.json()) as { id: string }).id });
      }
      const routes = [
        {
          label: 'get',
          route: 'GET /v1/generations/{id}',
          rule: rules.read,
          request: (key: (typeof keys)[number]): LoadRequest => ({
            method: 'GET',
            path: `/v1/generations/${key.generationId}`,
            headers: { authorization: key.headers.authorization! },
          }),
        },
        {
          label: 'create',
          route: 'POST /v1/generations',
          rule: rules.create,
          request: (key: (typeof keys)[number]): LoadRequest => ({
            method: 'POST',
            path: '/v1/generations',
            headers: key.headers,
            body: bench.createBody,
          }),
        },
      ];

      console.log(
        `limits: ${routes.map((r) => `${r.label} ${r.route}`).join(' and ')} with the API keys' rate limits in memory, Redis and Postgres; ` +
          `budgets per key: read ${rules.read.perSecond}/s burst ${rules.read.burst}, create ${rules.create.perSecond}/s burst ${rules.create.burst}; ` +
          `each key loaded at about ${keyLoad} of its budget on the memory server, concurrency ${concurrency}`,
      );
      console.log(setupLine());

      const rows: SummaryRow[] = [];
      for (const { label, route, rule, request } of routes) {
        // As many keys as keep each at `keyLoad` of its budget at the memory server's rate.
        const probe = await runLoad({
          origin: origins.memory,
          requests: keys.map(request),
          concurrency,
          ...calibration,
        });
        const keyCount = Math.min(keyPool, Math.max(10, Math.ceil(probe.perSecond / (keyLoad * rule.perSecond))));
        const requests = keys.slice(0, keyCount).map(request);

        const before = {
          redis: await redisScriptCalls(redisStats),
          postgres: await postgresWrites(postgresStats),
          redisServed: served.redis(),
          postgresServed: served.postgres(),
        };
        const measured = await compareThroughput(origins, requests);
        const calls = {
          redis: ((await redisScriptCalls(redisStats)) - before.redis) / (served.redis() - before.redisServed),
          postgres:
            ((await postgresWrites(postgresStats)) - before.postgres) / (served.postgres() - before.postgresServed),
        };

        const perKey = (store: Store) => measured[store].perSecond / keyCount / rule.perSecond;
        console.log(
          `\n${label}: ${route} over ${keyCount} keys (calibration: ${fixed(probe.perSecond, 0)} req/s on memory)`,
        );
        console.log(
          throughputTable([
            ['memory (one process)', measured.memory],
            ['redis', measured.redis],
            ['postgres', measured.postgres],
          ]),
        );
        console.log(
          table(
            ['limits', 'each key, of its budget', 'store calls/req'],
            [
              ['memory', fixed(perKey('memory'), 2), '0'],
              ['redis', fixed(perKey('redis'), 2), fixed(calls.redis, 3)],
              ['postgres', fixed(perKey('postgres'), 2), fixed(calls.postgres, 3)],
            ],
          ),
        );
        const rate = (store: Store) => fixed(measured[store].perSecond, 0);
        const ratio = (store: Store) => sliceRatio(measured[store], measured.memory);
        console.log(
          `ratio redis/memory: ${fixed(ratio('redis'), 2)}${smoke ? '' : ' (target >= 0.8)'}; postgres/memory: ${fixed(ratio('postgres'), 2)}`,
        );
        rows.push(
          summaryRow(`limits ${label}: redis vs memory (req/s)`, rate('redis'), rate('memory'), ratio('redis'), {
            atLeast: 0.8,
          }),
          summaryRow(
            `limits ${label}: postgres vs memory (req/s)`,
            rate('postgres'),
            rate('memory'),
            ratio('postgres'),
          ),
        );
      }
      return rows;
    } finally {
      for (const close of opened.reverse()) await close();
    }
  },
  { boundSeconds: sized(420, 60) },
);
