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
  return (
    <main class="auth" id="main">
      <PageTitle>Signing you in…</PageTitle>
      <ErrorText error={error} />
      {error && (
        <p>
          <a href={href('/sign-in')}>Sign in with your email and password</a>
        </p>
      )}
    </main>
  );
}
