import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import { tenantService } from '../core/services/tenants.ts';
import { randomIds } from '../plugins/ids-random/index.ts';
import { openSqlite } from '../plugins/store-kysely/sqlite.ts';

const run = promisify(execFile);
const child = path.join(import.meta.dirname, 'support', 'sqlite-child.ts');
const inChild = async (...args: string[]) =>
  JSON.parse((await run(process.execPath, ['--import', 'tsx', child, ...args])).stdout);

/** serve, worker and CLI processes share one SQLite file; SQLite's locks must keep them apart. */
describe('sqlite shared by several processes', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-procs-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('migrates once when four processes start on a new file together', async () => {
    const file = path.join(dir, 'migrate.db');
    const reports: Array<{ applied: string[] }> = await Promise.all([1, 2, 3, 4].map(() => inChild('migrate', file)));
    const applied = reports.flatMap((report) => report.applied);
    assert.equal(new Set(applied).size, applied.length, 'no migration ran twice');
    const persistence = openSqlite(file);
    assert.deepEqual(await persistence.pendingMigrations(), []);
    await persistence.close();
  });

  it('never overdraws when four processes debit at once', async () => {
    const file = path.join(dir, 'debit.db');
    const persistence = openSqlite(file);
    await persistence.migrate();
    const { organization } = await tenantService({
      persistence,
      ids: randomIds,
      clock: { now: Date.now },
    }).createOrganization({ name: 'Race', credits: 50 });
    const results: Array<Array<number | null>> = await Promise.all(
      [1, 2, 3, 4].map(() => inChild('debit', file, organization.id, '5', '3')),
    );
    const succeeded = results.flat().filter((balance) => balance !== null);
    assert.equal(succeeded.length, 16, '50 credits cover 16 debits of 3');
    assert.equal((await persistence.organizations.get(organization.id))?.creditBalance, 2);
    await persistence.close();
  });
});
