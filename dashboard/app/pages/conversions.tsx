import { api, unwrap, type Schemas } from '../api.ts';
import { DocsLink } from '../components/docs-link.tsx';
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
      <p class="muted">
        Every order your shop reported, newest first. An order is attributed to the latest visualization the same
        visitor made through the store's widgets within the store's attribution window before it; its attributed revenue
        is the total of its items whose product was in that visualization. Refunded and cancelled orders stay listed but
        no longer count on the Overview.
      </p>
      <ErrorText error={list.error} />
      {!list.loading && !list.error && list.items.length === 0 && <NoOrdersYet />}
      <ScrollTable label="Conversions table">
        <table>
          <thead>
            <tr>
              <th scope="col">Order</th>
              <th scope="col">Ordered</th>
              <th scope="col">Store</th>
              <th scope="col">Order total</th>
              <th scope="col">Status</th>
              <th scope="col">Reported by</th>
              <th scope="col">Attributed to (generation)</th>
              <th scope="col">Attributed revenue (visualized items)</th>
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

/** How orders get here: the order webhook or the SDK's conversion call, both described in the docs. */
function NoOrdersYet() {
  return (
    <section class="empty-state" aria-label="How orders get here">
      <p>
        <strong>No orders reported yet.</strong> Orders appear here once your shop reports them, in either or both ways
        (the same order is stored once):
      </p>
      <ul>
        <li>
          <strong>From your server:</strong> the order webhook <code>POST /api/webhooks/orders</code>, with a conversion
          key (create one under <a href={href('/developers')}>API keys on the Developers page</a>).
        </li>
        <li>
          <strong>From the order confirmation page:</strong> the browser SDK's{' '}
          <code>Visualizer.track('$conversion', …)</code>, which needs no key (a widget's code snippet loads the SDK).
        </li>
      </ul>
      <p>
        To attribute an order, the webhook needs the shopper's <code>visitorId</code> and <code>sessionId</code>: read
        them with <code>Visualizer.getIdentity()</code> on your pages and pass them through your checkout form.{' '}
        <DocsLink section="Conversions">Reporting orders in the API reference</DocsLink>.
      </p>
    </section>
  );
}
