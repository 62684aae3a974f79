// Run as a separate process by test/sqlite-processes.test.ts: `migrate FILE` or `debit FILE ORG COUNT AMOUNT`.
import { randomIds } from '../../plugins/ids-random/index.ts';
import { openSqlite } from '../../plugins/store-kysely/sqlite.ts';

const [action, file, organizationId, count, amount] = process.argv.slice(2);
const persistence = openSqlite(file!);
if (action === 'migrate') {
  process.stdout.write(JSON.stringify(await persistence.migrate()));
} else {
  const balances = [];
  for (let i = 0; i < Number(count); i++) {
    balances.push(
      await persistence.credits.debit({
        organizationId: organizationId!,
        amount: Number(amount),
        reason: 'race',
        ledgerEntryId: randomIds.id('cle_'),
        at: Date.now(),
      }),
    );
  }
  process.stdout.write(JSON.stringify(balances));
}
await persistence.close();
