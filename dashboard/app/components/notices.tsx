import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useState } from 'preact/hooks';

type Notify = (message: string) => void;
const NoticeContext = createContext<Notify>(() => {});

/**
 * One polite live region for the whole app: "Copied", "Key revoked"… are read out by screen
 * readers and shown for a few seconds.
 */
export function NoticeProvider({ children }: { children: ComponentChildren }) {
  const [message, setMessage] = useState('');
  const notify = useCallback((text: string) => {
    setMessage(text);
    setTimeout(() => setMessage((current) => (current === text ? '' : current)), 5000);
  }, []);
  return (
    <NoticeContext.Provider value={notify}>
      {children}
      <div class="notice" role="status" aria-live="polite">
        {message}
      </div>
    </NoticeContext.Provider>
  );
}

export const useNotify = () => useContext(NoticeContext);
