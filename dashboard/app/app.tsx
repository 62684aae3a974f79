import { useEffect, useState } from 'preact/hooks';
import { api, setCsrfToken, unwrap, whenSignedOut, type SessionResource } from './api.ts';
import { Layout } from './components/layout.tsx';
import { NoticeProvider } from './components/notices.tsx';
import { currentRoute, navigate, useRoute } from './router.ts';
import { SessionContext } from './session.ts';
import { AcceptInvitationPage } from './pages/accept-invitation.tsx';
import { ConversionsPage } from './pages/conversions.tsx';
import { CreditsPage } from './pages/credits.tsx';
import { DevelopersPage } from './pages/developers.tsx';
import { GenerationDetailPage } from './pages/generation-detail.tsx';
import { GenerationsPage } from './pages/generations.tsx';
import { OverviewPage } from './pages/overview.tsx';
import { PrivacyPage } from './pages/privacy.tsx';
import { SignInLinkPage } from './pages/sign-in-link.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { StoresPage } from './pages/stores.tsx';
import { TeamPage } from './pages/team.tsx';

/** Pages anyone may open; every other page needs a session. */
const publicPages = new Set(['/sign-in', '/accept-invitation', '/sign-in-link']);

export function App() {
  const route = useRoute();
  // undefined: not asked yet; null: signed out.
  const [session, setSession] = useState<SessionResource | null | undefined>(undefined);

  const signedIn = (next: SessionResource) => {
    setCsrfToken(next.csrfToken);
    setSession(next);
    // Back to the page that asked for a session (a same-app path only), else the overview.
    const then = currentRoute().query.get('next') ?? '';
    navigate(/^\/[a-z]/.test(then) && !publicPages.has(then.split('?')[0]!) ? then : '/overview', { replace: true });
  };
  const toSignIn = () => {
    const { path, query } = currentRoute();
    const search = query.toString();
    const here = publicPages.has(path) ? '' : `${path}${search ? `?${search}` : ''}`;
    navigate(`/sign-in${here && here !== '/' ? `?next=${encodeURIComponent(here)}` : ''}`, { replace: true });
  };

  useEffect(() => {
    whenSignedOut(() => {
      setSession(null);
      toSignIn();
    });
    // Without the session cookie the answer would be a 401 (a console error): go straight to sign-in.
    if ((publicPages.has(route.path) && route.path !== '/sign-in') || document.body.dataset.sessionCookie === 'no') {
      setSession(null);
      return;
    }
    unwrap(api.GET('/v1/session')).then(
      (found) => {
        setCsrfToken(found.csrfToken);
        setSession(found);
      },
      () => setSession(null),
    );
  }, []);

  if (session === undefined) return <p class="loading">Loading…</p>;

  const open = (() => {
    if (route.path === '/accept-invitation')
      return <AcceptInvitationPage token={route.query.get('token') ?? ''} onSignedIn={signedIn} />;
    if (route.path === '/sign-in-link')
      return <SignInLinkPage token={route.query.get('token') ?? ''} onSignedIn={signedIn} />;
    if (!session) {
      if (route.path !== '/sign-in') queueMicrotask(toSignIn);
      return <SignInPage onSignedIn={signedIn} />;
    }
    return null;
  })();

  return (
    <NoticeProvider>
      {open ?? (
        <SessionContext.Provider value={session!}>
          <Layout
            path={route.path}
            onSignedOut={() => {
              setCsrfToken('');
              setSession(null);
              navigate('/sign-in', { replace: true });
            }}
          >
            {page(route.path, route.query)}
          </Layout>
        </SessionContext.Provider>
      )}
    </NoticeProvider>
  );
}

function page(path: string, query: URLSearchParams) {
  const [, section, id] = path.split('/');
  switch (section) {
    case 'generations':
      return id ? <GenerationDetailPage key={id} id={decodeURIComponent(id)} /> : <GenerationsPage query={query} />;
    case 'developers':
      return <DevelopersPage />;
    case 'stores':
      return <StoresPage />;
    case 'conversions':
      return <ConversionsPage />;
    case 'credits':
      return <CreditsPage />;
    case 'privacy':
      return <PrivacyPage />;
    case 'team':
      return <TeamPage />;
    default:
      if (section !== 'overview') queueMicrotask(() => navigate('/overview', { replace: true }));
      return <OverviewPage />;
  }
}
