import { useState } from 'preact/hooks';
import { api, unwrap, type SessionResource } from '../api.ts';
import { ErrorText, PageTitle, useAction } from '../components/ui.tsx';

/** Email and password → `POST /v1/session`; the server sets the session cookie. */
export function SignInPage({ onSignedIn }: { onSignedIn: (session: SessionResource) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { error, busy, run } = useAction();
  return (
    <main class="auth" id="main">
      <PageTitle>Sign in to Visualizer</PageTitle>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void run(async () => onSignedIn(await unwrap(api.POST('/v1/session', { body: { email, password } }))));
        }}
      >
        <label>
          Email
          <input
            type="email"
            name="email"
            autocomplete="username"
            required
            value={email}
            onInput={(event) => setEmail(event.currentTarget.value)}
          />
        </label>
        <label>
          Password
          <input
            type="password"
            name="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(event) => setPassword(event.currentTarget.value)}
          />
        </label>
        <ErrorText error={error} />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      <p class="muted">
        For accounts with a password. An account without one, like the development admin (
        <code>admin@development.localhost</code>), signs in with the <em>Dashboard sign-in</em> link{' '}
        <code>npm start</code> prints: restart it for a new link.
      </p>
      <p class="muted">
        No account yet? An admin of your organization invites you from the Team page, or the operator with{' '}
        <code>npx visualizer users invite --org ORG_ID --email you@shop.example --role admin</code>.
      </p>
    </main>
  );
}
