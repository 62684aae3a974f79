import { api, unwrap, type Schemas } from '../api.ts';
import { ErrorText, LoadMore, PageTitle, ScrollTable, ShortId, Time } from '../components/ui.tsx';
import { Widgets } from '../components/widgets.tsx';
import { usePaged } from '../hooks.ts';
import { useSession } from '../session.ts';

export function StoresPage() {
  const session = useSession();
  const stores = usePaged<Schemas['Store']>(
    (startingAfter) =>
      unwrap(api.GET('/v1/stores', { params: { query: { limit: 20, starting_after: startingAfter } } })),
    'stores',
  );
  return (
    <>
      <PageTitle>Stores & widgets</PageTitle>
      <section aria-labelledby="ids-heading">
        <h2 id="ids-heading">Your organization</h2>
        <p class="muted">The order webhook needs the organization id and a store id with every order it reports.</p>
        <dl class="facts">
          <dt>Organization id</dt>
          <dd>
            <ShortId id={session.organization.id} />
          </dd>
          <dt>Name</dt>
          <dd>{session.organization.name}</dd>
        </dl>
      </section>
      <section aria-labelledby="stores-heading">
        <h2 id="stores-heading">Stores</h2>
        <p class="muted">
          A store is one storefront: widgets, orders and their attribution belong to it. An order is attributed to a
          visualization the same visitor made through the store's widgets at most the attribution window before it.
        </p>
        <ErrorText error={stores.error} />
        <ScrollTable label="Stores table">
          <table>
            <thead>
              <tr>
                <th scope="col">Store</th>
                <th scope="col">Store id</th>
                <th scope="col">Attribution window</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {stores.items.map((store) => (
                <tr key={store.id}>
                  <th scope="row">{store.name}</th>
                  <td>
                    <ShortId id={store.id} />
                  </td>
                  <td>{store.attributionWindowDays} days</td>
                  <td>
                    <Time iso={store.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
        <LoadMore hasMore={stores.hasMore} loading={stores.loading} onClick={stores.loadMore} />
      </section>
      <Widgets stores={stores.items} />
    </>
  );
}
