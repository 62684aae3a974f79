import { api, unwrap, type Schemas } from '../api.ts';
import { ErrorText, LoadMore, PageTitle, ScrollTable, ShortId, Time } from '../components/ui.tsx';
import { money } from '../format.ts';
import { usePaged } from '../hooks.ts';
import { href } from '../router.ts';

/** Orders reported by the shop, newest first, with the visualization each is attributed to. */
export function ConversionsPage() {
  const list = usePaged<Schemas['Conversion']>(
    (startingAfter) =>
      unwrap(api.GET('/v1/conversions', { params: { query: { limit: 25, starting_after: startingAfter } } })),
    'conversions',
  );
  return (
    <>
      <PageTitle>Conversions</PageTitle>
      <ErrorText error={list.error} />
      {!list.loading && list.items.length === 0 && <p class="muted">No conversions reported yet.</p>}
      <ScrollTable label="Conversions table">
        <table>
          <thead>
            <tr>
              <th scope="col">Order</th>
              <th scope="col">Ordered</th>
              <th scope="col">Store</th>
              <th scope="col">Total</th>
              <th scope="col">Status</th>
              <th scope="col">Source</th>
              <th scope="col">Attributed to</th>
              <th scope="col">Attributed revenue</th>
            </tr>
          </thead>
          <tbody>
            {list.items.map((conversion) => (
              <tr key={conversion.id}>
                <th scope="row">
                  <code>{conversion.orderId}</code>
                </th>
                <td>
                  <Time iso={conversion.orderCreatedAt} />
                </td>
                <td>
                  <ShortId id={conversion.storeId} />
                </td>
                <td class="number">{money(conversion.totalCents, conversion.currency)}</td>
                <td>{conversion.status}</td>
                <td>{conversion.source}</td>
                <td>
                  {conversion.attribution ? (
                    <ShortId
                      id={conversion.attribution.generationId}
                      href={href(`/generations/${encodeURIComponent(conversion.attribution.generationId)}`)}
                    />
                  ) : (
                    'not attributed'
                  )}
                </td>
                <td class="number">
                  {conversion.attribution
                    ? money(conversion.attribution.attributedRevenueCents, conversion.currency)
                    : '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollTable>
      <LoadMore hasMore={list.hasMore} loading={list.loading} onClick={list.loadMore} />
    </>
  );
}
