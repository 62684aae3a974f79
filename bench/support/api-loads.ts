import type BetterSqlite3 from 'better-sqlite3';
import { getRouterParam, HTTPError, type H3, type H3Event } from 'h3';
import { hashKey } from '../../core/domain/api-keys.ts';
import type { startBenchApp } from './app.ts';
import { createGeneration, generationResourceFromRow, readsOfGenerations } from './generation-resource.ts';
import type { LoadRequest } from './load.ts';
import { insertLike, sharedCommits } from './same-work.ts';

type BenchApp = Awaited<ReturnType<typeof startBenchApp>>;
type Row = Record<string, unknown>;

/**
 * One API benchmark's requests, the floor's routes (a bare h3 answering the same route with a
 * constant resource) and the same-work ceiling's (see same-work.ts: the route's SQLite work on bare h3).
 */
export interface ApiLoad {
  requests: LoadRequest[];
  floorRoutes: (app: H3) => void;
  sameWorkRoutes: (app: H3, db: BetterSqlite3.Database) => void;
}

/** The ceiling's authentication: the key's hash looked up, as every authenticated API call does. */
function keyLookup(db: BetterSqlite3.Database) {
  const byHash = db.prepare('select * from api_keys where key_hash = ?');
  return (event: H3Event): Row => {
    const key = byHash.get(hashKey(event.req.headers.get('authorization')?.slice('Bearer '.length) ?? '')) as
      | Row
      | undefined;
    if (!key || key.revoked_at !== null) throw new HTTPError({ status: 401 });
    return key;
  };
}

/** `POST /v1/generations`; the floor reads the same JSON body and answers 202 with a real create's resource. */
export async function createLoad(bench: BenchApp): Promise<ApiLoad> {
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
    // The statements of an API create (workers do nothing here): the key lookup, then in one shared
    // commit the covered debit, the generation, its render job and the ledger entry.
    sameWorkRoutes: (app, db) => {
      const authenticate = keyLookup(db);
      const sample = {
        generation: db.prepare('select * from generations where id = ?').get(resource.id) as Row,
        job: db.prepare("select * from jobs where payload like '%' || ? || '%'").get(resource.id) as Row,
        ledger: db.prepare('select * from credit_ledger where reference = ?').get(resource.id) as Row,
      };
      const debit = db
        .prepare(
          'update organizations set credit_balance = credit_balance - ? where id = ? and credit_balance >= ? returning credit_balance',
        )
        .pluck();
      const insertGeneration = insertLike(db, 'generations', sample.generation);
      const insertJob = insertLike(db, 'jobs', sample.job);
      const insertLedgerEntry = insertLike(db, 'credit_ledger', sample.ledger);
      const commit = sharedCommits(db);
      const { ids } = bench.app.container.cradle;
      app.post('/v1/generations', async (event) => {
        const body = (await event.req.json()) as { products: unknown };
        const organizationId = authenticate(event).organization_id;
        const id = ids.id('agen_');
        const now = Date.now();
        await commit(() => {
          const balance = debit.get(1, organizationId, 1);
          if (balance === undefined) throw new HTTPError({ status: 403 });
          insertGeneration.run({ ...sample.generation, id, products: JSON.stringify(body.products), created_at: now });
          insertJob.run({
            ...sample.job,
            id: ids.id('job_'),
            payload: JSON.stringify({ generationId: id, organizationId }),
            run_at: now,
            created_at: now,
          });
          // seq null: SQLite numbers the entry, as for the app's insert, which names no seq.
          insertLedgerEntry.run({
            ...sample.ledger,
            seq: null,
            id: ids.id('cle_'),
            reference: id,
            balance_after: balance,
            created_at: now,
          });
        });
        event.res.status = 202;
        return { ...resource, id, createdAt: new Date(now).toISOString() };
      });
    },
  };
}

/** `GET /v1/generations/{id}` cycling over `count` generations; the floor answers a real read's resource. */
export async function readLoad(bench: BenchApp, count = 200): Promise<ApiLoad> {
  const { requests, resource } = await readsOfGenerations(bench, count);
  return {
    requests,
    floorRoutes: (app) => {
      app.get('/v1/generations/:id', () => resource);
    },
    // The key lookup and the generation read, the row made into the resource.
    sameWorkRoutes: (app, db) => {
      const work = readWork(db);
      app.get('/v1/generations/:id', (event) =>
        generationResourceFromRow(work.read(getRouterParam(event, 'id'), work.key(event).organization_id)),
      );
    },
  };
}

/** The get ceiling's statements as plain functions: its key lookup and its generation read (tools/get-gap.ts reuses them). */
export function readWork(db: BetterSqlite3.Database) {
  const byId = db.prepare('select * from generations where id = ? and organization_id = ?');
  return {
    key: keyLookup(db),
    read(id: string | undefined, organizationId: unknown): Row {
      const row = byId.get(id, organizationId) as Row | undefined;
      if (!row) throw new HTTPError({ status: 404 });
      return row;
    },
  };
}
