import { type ReactElement, Suspense, useCallback, useEffect, useState } from 'react';
import { ApiError, forgetEarlyReads, getSession, readEarly } from './api/client.ts';
import type { Session } from './api/types.ts';
import { Shell } from './layout/shell.tsx';
import { ChunkPage } from './page-chunk.tsx';
import { isSignInPage, loadEveryPage, pageAt, pages } from './page-table.ts';
import { currentPath, navigate, useLocation } from './router.tsx';
import { rememberSession, SessionContext } from './session.tsx';
import { Loading } from './ui/components.tsx';

export function App() {
  const [session, setSessionState] = useState<Session | null | undefined>(undefined);
  const [loadError, setLoadError] = useState<string | undefined>();
  const { path, query } = useLocation();

  const setSession = useCallback((next: Session | null) => {
    rememberSession(next);
    setSessionState(next);
  }, []);

  useEffect(() => {
    // The chunk of the page a cold load most likely shows comes beside the session call (a sign-in
    // page's for a signed-out user, any other's for a signed-in one), and the page is drawn once both
    // are here, without a "Loading…" in between. A signed-in page's first data is asked for then too.
    const signedInPage = () => (pageAt(currentPath(), true) ?? pageAt('/keys', true))!;
    if (isSignInPage(currentPath())) void pageAt(currentPath(), false)?.page.load();
    else {
      const { page, firstReads } = signedInPage();
      void page.load();
      if (firstReads) readEarly(firstReads);
    }
    getSession().then(
      async (next) => {
        await signedInPage().page.load();
        setSession(next);
      },
      async (error: unknown) => {
        forgetEarlyReads();
        if (error instanceof ApiError && error.status === 401) {
          await pageAt(currentPath(), false)?.page.load();
          setSession(null);
        } else setLoadError(error instanceof Error ? error.message : String(error));
      },
    );
  }, [setSession]);

  const ready = session !== undefined;
  useEffect(() => {
    if (!ready) return;
    const timer = setTimeout(loadEveryPage, 1_000);
    return () => clearTimeout(timer);
  }, [ready]);

  const here = `${path}${query.size ? `?${query}` : ''}`;
  const at = session === undefined ? undefined : pageAt(path, session !== null);
  useEffect(() => {
    if (session === null && at?.page === pages.signIn && path !== '/sign-in')
      navigate(`/sign-in?next=${encodeURIComponent(here)}`, { replace: true });
    else if (session && isSignInPage(path)) navigate(safeNext(query.get('next')), { replace: true });
    else if (session && path === '/') navigate('/keys', { replace: true });
  }, [session, at?.page, here, path, query]);

  if (loadError) {
    return (
      <div className="auth-page">
        <div className="auth-card" role="alert">
          <h1>The dashboard could not load</h1>
          <p>{loadError}</p>
        </div>
      </div>
    );
  }
  if (session === undefined || !at) return <Loading what="Loading the dashboard" />;

  const { page, params, inShell } = at;
  const content: ReactElement = inShell ? (
    <Shell>
      {/* A new account is a new page: nothing of the previous one stays on screen. */}
      <ChunkPage key={`${session?.account.id}:${path}`} chunk={page} params={params} />
    </Shell>
  ) : (
    <ChunkPage chunk={page} params={params} />
  );
  return (
    <SessionContext.Provider value={{ session, setSession }}>
      <Suspense fallback={<Loading />}>{content}</Suspense>
    </SessionContext.Provider>
  );
}

/** Where to go after signing in: a path of this app only, never another site. */
export function safeNext(next: string | null): string {
  if (!next?.startsWith('/') || next.startsWith('//') || next.startsWith('/sign-in')) return '/keys';
  return next;
}
