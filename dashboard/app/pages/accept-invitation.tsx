import { useState } from 'preact/hooks';
import { api, unwrap, type SessionResource } from '../api.ts';
import { ErrorText, PageTitle, useAction } from '../components/ui.tsx';

/** The invitation link: choose a password (`POST /v1/invitations/accept`), then you are signed in. */
export function AcceptInvitationPage({
  token,
  onSignedIn,
}: {
  token: string;
  onSignedIn: (session: SessionResource) => void;
}) {
  const [password, setPassword] = useState('');
  const [repeated, setRepeated] = useState('');
  const { error, busy, run, setError } = useAction();
  return (
    <main class="auth" id="main">
      <PageTitle>Set your password</PageTitle>
      {!token ? (
        <p class="error" role="alert">
          This link has no token. Open the whole link you were given, or ask your admin for a new one.
        </p>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            if (password !== repeated) return setError('The two passwords differ.');
            void run(async () =>
              onSignedIn(await unwrap(api.POST('/v1/invitations/accept', { body: { token, password } }))),
            );
          }}
        >
          <label>
            New password <span class="muted">(at least 10 characters)</span>
            <input
              type="password"
              name="password"
              autocomplete="new-password"
              minLength={10}
              maxLength={256}
              required
              value={password}
              onInput={(event) => setPassword(event.currentTarget.value)}
            />
          </label>
          <label>
            Repeat the password
            <input
              type="password"
              name="repeated"
              autocomplete="new-password"
              required
              value={repeated}
              onInput={(event) => setRepeated(event.currentTarget.value)}
            />
          </label>
          <ErrorText error={error} />
          <button type="submit" disabled={busy}>
            Set password and sign in
          </button>
        </form>
      )}
    </main>
  );
}
