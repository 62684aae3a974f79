import { api, unwrap, type Schemas } from '../api.ts';
import { ErrorText, LoadMore, PageTitle, ScrollTable, ShortId, Time } from '../components/ui.tsx';
import { useLoad, usePaged } from '../hooks.ts';
import { ledgerReason } from '../labels.ts';
import { href } from '../router.ts';

/** The balance, and the ledger behind it page by page. */
export function CreditsPage() {
  const balance = useLoad(() => unwrap(api.GET('/v1/credits')), 'balance');
  const ledger = usePaged<Schemas['CreditLedgerEntry']>(
    (startingAfter) =>
      unwrap(api.GET('/v1/credits/ledger', { params: { query: { limit: 25, starting_after: startingAfter } } })),
    'ledger',
  );
  return (
    <>
      <PageTitle>Credits</PageTitle>
      <ErrorText error={balance.error} />
      <p class="balance">
        Balance: <strong>{balance.value ? balance.value.balance : '…'}</strong> credits{' '}
        <span class="muted">(a 1K image costs 1, 2K 2, 4K 3)</span>
      </p>
      <section aria-labelledby="ledger-heading">
        <h2 id="ledger-heading">Ledger</h2>
        <ErrorText error={ledger.error} />
        <ScrollTable label="Ledger table">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Change</th>
                <th scope="col">Balance after</th>
                <th scope="col">Reason</th>
                <th scope="col">Reference</th>
              </tr>
            </thead>
            <tbody>
              {ledger.items.map((entry) => (
                <tr key={entry.id}>
                  <th scope="row">
                    <Time iso={entry.createdAt} />
                  </th>
                  <td class="number">{entry.delta > 0 ? `+${entry.delta}` : entry.delta}</td>
                  <td class="number">{entry.balanceAfter}</td>
                  <td title={entry.reason}>{ledgerReason(entry.reason)}</td>
                  <td>
                    {entry.reference?.startsWith('agen_') ? (
                      <ShortId
                        id={entry.reference}
                        href={href(`/generations/${encodeURIComponent(entry.reference)}`)}
                      />
                    ) : (
                      (entry.reference ?? '—')
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
        {!ledger.loading && !ledger.error && ledger.items.length === 0 && (
          <p class="muted">
            No entries yet: every credit added and every generation charged or refunded is listed here. The operator
            adds credits with <code>npx visualizer credits add --org ORG_ID --amount N</code>.
          </p>
        )}
        <LoadMore hasMore={ledger.hasMore} loading={ledger.loading} onClick={ledger.loadMore} />
      </section>
    </>
  );
}
