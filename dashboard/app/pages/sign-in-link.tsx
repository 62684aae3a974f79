import { useEffect } from 'preact/hooks';
import { api, unwrap, type SessionResource } from '../api.ts';
import { ErrorText, PageTitle, useAction } from '../components/ui.tsx';
import { href } from '../router.ts';

/** A one-time sign-in link (`npm start` prints one): redeemed with `POST /v1/session {token}`. */
export function SignInLinkPage({
  token,
  onSignedIn,
}: {
  token: string;
  onSignedIn: (session: SessionResource) => void;
}) {
  const { error, run, setError } = useAction();
  useEffect(() => {
    if (!token) setError('This link has no token. Open the whole link you were given.');
    else void run(async () => onSignedIn(await unwrap(api.POST('/v1/session', { body: { token } }))));
  }, [token]);
  if (!error)
    return (
      <main class="auth" id="main">
        <PageTitle>Signing you in…</PageTitle>
      </main>
    );
  // A link works once and briefly: the heading must say it failed, and what to do instead.
  return (
    <main class="auth" id="main">
      <PageTitle>This sign-in link did not work</PageTitle>
      <ErrorText error={error} />
      <p>A sign-in link works once, for 15 minutes. To get in:</p>
      <ul>
        <li>
          <strong>The development admin</strong> (<code>admin@development.localhost</code>, who has no password):
          restart <code>npm start</code> and open the new <em>Dashboard sign-in</em> link it prints.
        </li>
        <li>
          <strong>Anyone else without a password:</strong> ask an admin of your organization for a new link (Team page,
          or <code>npx visualizer users invite --org ORG_ID --email … --role …</code>).
        </li>
        <li>
          <strong>If you have set a password:</strong>{' '}
          <a href={href('/sign-in')}>sign in with your email and password</a>.
        </li>
      </ul>
    </main>
  );
}
