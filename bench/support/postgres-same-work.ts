import { getRouterParam, HTTPError, type H3, type H3Event } from 'h3';
import pg from 'pg';
import { hashKey } from '../../core/domain/api-keys.ts';
import { jobsChannel } from '../../core/ports/job-queue.ts';
import { renderJobKind } from '../../core/services/generations.ts';
import type { startBenchApp } from './app.ts';
import { startBareH3 } from './bare-h3.ts';
import { createGeneration, generationResourceFromRow, readsOfGenerations } from './generation-resource.ts';
import type { LoadRequest } from './load.ts';

type BenchApp = Awaited<ReturnType<typeof startBenchApp>>;
type Row = Record<string, unknown>;

/** Postgres loads: the requests, the floor's routes (constant answers) and the same-work ceiling's (the route's SQL on a bare pg pool). */
export interface PostgresApiLoad {
  requests: LoadRequest[];
  floorRoutes: (app: H3) => void;
  sameWorkRoutes: (app: H3, pool: pg.Pool) => Promise<void>;
}

const INT8 = 20;
/** As the app's pool reads them (plugins/store-kysely/postgres.ts): bigint columns as numbers. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/**
 * The same-work ceiling on Postgres: bare h3 sending the route's statements (those the app sends,
 * as parameterized queries, the create's in one transaction) through a plain pg pool of the app's
 * size, and nothing else of ours. Unlike the SQLite ceiling it shares the benchmark's database (a
 * server-side copy needs the app's connections closed); the servers take turns, never load it at once.
 */
export async function startPostgresSameWork(
  databaseUrl: string,
  routes: PostgresApiLoad['sameWorkRoutes'],
  poolSize = 10,
) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize, types });
  pool.on('error', () => {});
  let server: Awaited<ReturnType<typeof startBareH3>> | undefined;
  try {
    let setup: Promise<void> = Promise.resolve();
    server = await startBareH3((app) => void (setup = routes(app, pool)));
    await setup;
  } catch (error) {
    await server?.close();
    await pool.end();
    throw error;
  }
  return {
    url: server.url,
    async close() {
      await server.close();
      await pool.end();
    },
  };
}

/** The key's hash looked up, as every authenticated API call does. */
function keyLookup(pool: pg.Pool) {
  return async (event: H3Event): Promise<Row> => {
    const { rows } = await pool.query('select * from "api_keys" where "key_hash" = $1', [
      hashKey(event.req.headers.get('authorization')?.slice('Bearer '.length) ?? ''),
    ]);
    const key = rows[0] as Row | undefined;
    if (!key || key.revoked_at !== null) throw new HTTPError({ status: 401 });
    return key;
  };
}

/** `insert into "<table>" (<columns>) values ($1…)` for rows shaped like `row`, minus `skip` (columns the database numbers). */
function insertLike(table: string, row: Row, skip: string[] = []) {
  const columns = Object.keys(row).filter((column) => !skip.includes(column));
  const text = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values (${columns.map((_, i) => `$${i + 1}`).join(', ')})`;
  return (client: pg.PoolClient, values: Row) =>
    client.query(
      text,
      columns.map((column) => values[column]),
    );
}

/** `POST /v1/generations` on Postgres; the floor reads the same JSON body and answers a real create's resource. */
export async function postgresCreateLoad(bench: BenchApp): Promise<PostgresApiLoad> {
  const resource = await createGeneration(bench);
  return {
    requests: [{ method: 'POST', path: '/v1/generations', headers: bench.headers, body: bench.createBody }],
    floorRoutes: (app) => {
      app.post('/v1/generations', async (event) => {
        await event.req.json();
        event.res.status = 202;
        return resource;
      });
    },
    // The statements of an API create (workers do nothing here): the key lookup, then in one
    // transaction the covered debit, the ledger entry, the generation, its render job and the
    // queue's wake-up notification (when the queue keeps its jobs in the `jobs` table).
    sameWorkRoutes: async (app, pool) => {
      const authenticate = keyLookup(pool);
      const one = async (text: string, values: unknown[]) =>
        (await pool.query(text, values)).rows[0] as Row | undefined;
      const generation = await one('select * from "generations" where "id" = $1', [resource.id]);
      const ledger = await one('select * from "credit_ledger" where "reference" = $1', [resource.id]);
      const job = await one(`select * from "jobs" where "payload" like '%' || $1 || '%'`, [resource.id]).catch(
        () => undefined,
      );
      if (!generation || !ledger) throw new Error('the sample create left no generation or ledger row');
      const insertGeneration = insertLike('generations', generation);
      const insertLedgerEntry = insertLike('credit_ledger', ledger, ['seq']);
      const insertJob = job ? insertLike('jobs', job) : undefined;
      const { ids } = bench.app.container.cradle;
      app.post('/v1/generations', async (event) => {
        const body = (await event.req.json()) as { products: unknown };
        const organizationId = (await authenticate(event)).organization_id;
        const id = ids.id('agen_');
        const now = Date.now();
        const client = await pool.connect();
        try {
          await client.query('begin');
          const debited = await client.query(
            'update "organizations" set "credit_balance" = credit_balance + $1 where "id" = $2 and "credit_balance" >= $3 returning "credit_balance"',
            [-1, organizationId, 1],
          );
          if (debited.rows.length === 0) throw new HTTPError({ status: 403 });
          const balance = (debited.rows[0] as Row).credit_balance;
          await insertLedgerEntry(client, {
            ...ledger,
            id: ids.id('cle_'),
            organization_id: organizationId,
            balance_after: balance,
            reference: id,
            created_at: now,
          });
          await insertGeneration(client, {
            ...generation,
            id,
            products: JSON.stringify(body.products),
            created_at: now,
          });
          if (insertJob) {
            await insertJob(client, {
              ...job,
              id: ids.id('job_'),
              payload: JSON.stringify({ generationId: id, organizationId }),
              run_at: now,
              created_at: now,
            });
            await client.query('select pg_notify($1, $2)', [jobsChannel, renderJobKind]);
          }
          await client.query('commit');
        } catch (error) {
          await client.query('rollback').catch(() => {});
          throw error;
        } finally {
          client.release();
        }
        event.res.status = 202;
        return { ...resource, id, createdAt: new Date(now).toISOString() };
      });
    },
  };
}

/** `GET /v1/generations/{id}` on Postgres cycling over `count` generations; the floor answers a real read's resource. */
export async function postgresReadLoad(bench: BenchApp, count = 200): Promise<PostgresApiLoad> {
  const { requests, resource } = await readsOfGenerations(bench, count);
  return {
    requests,
    floorRoutes: (app) => {
      app.get('/v1/generations/:id', () => resource);
    },
    // The key lookup and the generation read, the row made into the resource.
    sameWorkRoutes: async (app, pool) => {
      const authenticate = keyLookup(pool);
      app.get('/v1/generations/:id', async (event) => {
        const organizationId = (await authenticate(event)).organization_id;
        const { rows } = await pool.query('select * from "generations" where "id" = $1 and "organization_id" = $2', [
          getRouterParam(event, 'id'),
          organizationId,
        ]);
        const row = rows[0] as Row | undefined;
        if (!row) throw new HTTPError({ status: 404 });
        return generationResourceFromRow(row);
      });
    },
  };
}
