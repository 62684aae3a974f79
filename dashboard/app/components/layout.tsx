import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, messageOf, unwrap } from '../api.ts';
import { href } from '../router.ts';
import { useIsAdmin, useSession } from '../session.ts';
import { useNotify } from './notices.tsx';

const sections = [
  { path: '/overview', label: 'Overview' },
  { path: '/generations', label: 'Generations' },
  { path: '/developers', label: 'Developers' },
  { path: '/stores', label: 'Stores & widgets' },
  { path: '/conversions', label: 'Conversions' },
  { path: '/credits', label: 'Credits' },
  { path: '/privacy', label: 'Privacy' },
  { path: '/team', label: 'Team', admin: true },
  { path: '/team', label: 'Sessions', admin: false },
];

/** The frame of every signed-in page: who and where, the sections, sign-out. */
export function Layout({
  path,
  onSignedOut,
  children,
}: {
  path: string;
  onSignedOut: () => void;
  children: ComponentChildren;
}) {
  const session = useSession();
  const admin = useIsAdmin();
  const notify = useNotify();
  const [menuOpen, setMenuOpen] = useState(false);
  const current = `/${path.split('/')[1] ?? ''}`;

  const signOut = async () => {
    try {
      await unwrap(api.DELETE('/v1/session'));
    } catch (error) {
      notify(`Signing out failed: ${messageOf(error)}`);
      return;
    }
    onSignedOut();
  };

  return (
    <div class="frame">
      <a
        class="skip"
        href="#main"
        onClick={(event) => (event.preventDefault(), document.getElementById('main')?.focus())}
      >
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Visualizer</span>
        <span class="org" title="Organization">
          {session.organization.name}
        </span>
        <button
          type="button"
          class="menu-toggle secondary small"
          aria-expanded={menuOpen}
          aria-controls="nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <span class="who">
          <span>{session.user.email}</span> <span class="role">({session.user.role})</span>
        </span>
        <button type="button" class="secondary small" onClick={signOut}>
          Sign out
        </button>
      </header>
      <nav id="nav" class={menuOpen ? 'open' : ''} aria-label="Sections">
        {/* The header has no room for who is signed in on a phone: the open menu says it instead. */}
        <p class="menu-who">
          Signed in as <strong>{session.user.email}</strong>
          <span class="role">{session.user.role}</span>
        </p>
        <ul>
          {sections
            .filter((section) => (section.admin === undefined ? true : section.admin === admin))
            .map((section) => (
              <li key={section.label}>
                <a
                  href={href(section.path)}
                  aria-current={current === section.path ? 'page' : undefined}
                  onClick={() => setMenuOpen(false)}
                >
                  {section.label}
                </a>
              </li>
            ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
