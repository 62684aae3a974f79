import { ApiKeys } from '../components/api-keys.tsx';
import { EventsList } from '../components/events-list.tsx';
import { PageTitle } from '../components/ui.tsx';
import { WebhookEndpoints } from '../components/webhook-endpoints.tsx';

export function DevelopersPage() {
  return (
    <>
      <PageTitle>Developers</PageTitle>
      <p>
        The API's reference: <a href="../docs">API reference</a>.
      </p>
      <ApiKeys />
      <WebhookEndpoints />
      <EventsList />
    </>
  );
}
