import { createContext, useContext } from 'react';
import { setCsrfToken } from './api/client.ts';
import type { Session } from './api/types.ts';

export interface SessionState {
  /** undefined while the first GET /dashboard/api/session runs; null when signed out. */
  session: Session | null | undefined;
  setSession: (session: Session | null) => void;
}

export const SessionContext = createContext<SessionState>({ session: undefined, setSession: () => {} });

/** Keeps the CSRF token of the session that came last. */
export function rememberSession(session: Session | null): void {
  setCsrfToken(session?.csrf_token);
}

export const useSessionState = () => useContext(SessionContext);

/** The signed-in session (pages behind the sign-in only). */
export function useSession(): Session {
  const { session } = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}
