/**
 * What separates our GET from its same-work ceiling, step by step, in one run: the ceiling
 * (bench/get.ts's reference, a synchronous handler), then the ceiling sending our answer's headers,
 * then its handler async with one await, then shaped as our request is (one middleware awaiting
 * the route, the route awaiting its key, its rate limit and its read through as many async
 * functions as ours), then ours. Each step's ratio to the one before is what that step costs;
 * what is left between the last reference and ours is our own work around the database (request
 * id, metrics, the rate limiter, the key cache, the record mapping). The servers take turns in
 * slices as in every API benchmark (support/throughput.ts).
 *
 *   node --import tsx bench/tools/get-gap.ts
 */
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { getRouterParam, type H3 } from 'h3';
import { FastResponse } from 'srvx';
import { readLoad, readWork } from '../support/api-loads.ts';
import { startBenchApp } from '../support/app.ts';
import { generationResourceFromRow } from '../support/generation-resource.ts';
import { fixed, table } from '../support/report.ts';
import { startSameWork } from '../support/same-work.ts';
import { compareThroughput, setupLine, sliceRatio, throughputTable } from '../support/throughput.ts';

/**
 * The async functions our GET awaits its three steps through (core/http/routes/generations.ts):
 * the key (requireKey → authenticate → the key cache's find), the rate limit (the route's take →
 * the port's take → rate-limiter-flexible's consume) and the read (the service's get → the
 * repository's get → the prepared query → its run).
 */
const asyncDepth = { key: 3, rateLimit: 3, read: 4 };

/** `work`'s answer `depth` async functions down, each awaiting the next, as a chain of ports does. */
async function through<T>(depth: number, work: () => T): Promise<T> {
  return depth === 0 ? work() : await through(depth - 1, work);
}

/** The answer as ours sends it (core/http/request-id.ts): JSON with three headers, the id a fresh one. */
const ourHeaders = (body: unknown, requestId: string) =>
  new FastResponse(JSON.stringify(body), {
    status: 200,
    headers: {
      'content-type': 'application/json;charset=UTF-8',
      'x-content-type-options': 'nosniff',
      'x-request-id': requestId,
    },
  });

const bench = await startBenchApp();
const opened: Array<{ close(): Promise<void> }> = [];
try {
  const { requests, sameWorkRoutes } = await readLoad(bench, 200);
  const file = path.join(bench.app.container.cradle.config.dataDir, 'visualizer.db');
  const { ids } = bench.app.container.cradle;
  const start = async (routes: (app: H3, db: BetterSqlite3.Database) => void) => {
    const server = await startSameWork(file, routes);
    opened.push(server);
    return server.url;
  };

  const urls = {
    ceiling: await start(sameWorkRoutes),
    headers: await start((app, db) => {
      const work = readWork(db);
      app.get('/v1/generations/:id', (event) => {
        const row = work.read(getRouterParam(event, 'id'), work.key(event).organization_id);
        return ourHeaders(generationResourceFromRow(row), ids.id('req_'));
      });
    }),
    oneAwait: await start((app, db) => {
      const work = readWork(db);
      app.get('/v1/generations/:id', async (event) => {
        const key = await through(0, () => work.key(event));
        const row = work.read(getRouterParam(event, 'id'), key.organization_id);
        return ourHeaders(generationResourceFromRow(row), ids.id('req_'));
      });
    }),
    shaped: await start((app, db) => {
      const work = readWork(db);
      app.use(async (event, next) => {
        const requestId = ids.id('req_');
        const answer = await next();
        return event.res.status === 200 ? ourHeaders(answer, requestId) : answer;
      });
      app.get('/v1/generations/:id', async (event) => {
        const key = await through(asyncDepth.key, () => work.key(event));
        await through(asyncDepth.rateLimit, () => undefined);
        const row = await through(asyncDepth.read, () => work.read(getRouterParam(event, 'id'), key.organization_id));
        return generationResourceFromRow(row);
      });
    }),
    ours: bench.app.url,
  };

  console.log(`get-gap: GET /v1/generations/{id} over 200 generations\n${setupLine()}`);
  const measured = await compareThroughput(urls, requests);
  console.log(
    throughputTable([
      ['same-work ceiling', measured.ceiling],
      ['+ our answer headers', measured.headers],
      ['+ an async handler, one await', measured.oneAwait],
      ['+ our async shape', measured.shaped],
      ['visualizer', measured.ours],
    ]),
  );
  const steps: Array<[string, keyof typeof urls, keyof typeof urls]> = [
    ['our answer headers (x-request-id, nosniff)', 'headers', 'ceiling'],
    ['an async handler with one await', 'oneAwait', 'headers'],
    [
      `our async shape (a middleware; ${asyncDepth.key}+${asyncDepth.rateLimit}+${asyncDepth.read} awaited async functions)`,
      'shaped',
      'oneAwait',
    ],
    ['the rest of ours (id, metrics, rate limiter, key cache, mapping)', 'ours', 'shaped'],
    ['all of it: visualizer / same-work ceiling', 'ours', 'ceiling'],
  ];
  console.log(
    table(
      ['step', 'ratio'],
      steps.map(([label, after, before]) => [label, fixed(sliceRatio(measured[after], measured[before]), 3)]),
    ),
  );
} finally {
  for (const server of opened.reverse()) await server.close();
  await bench.close();
}
