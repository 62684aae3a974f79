import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { SessionResource } from './api.ts';

export const SessionContext = createContext<SessionResource | null>(null);

/** The signed-in session (pages under the layout are only drawn with one). */
export function useSession(): SessionResource {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}

/** Viewers are read-only: their pages draw no write controls (the server refuses them anyway). */
export const useIsAdmin = () => useSession().user.role === 'admin';
