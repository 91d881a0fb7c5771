import {
  type ComponentType,
  type LazyExoticComponent,
  lazy,
  type ReactElement,
  Suspense,
  useCallback,
  useEffect,
  useState,
} from 'react';
import { ApiError, getSession } from './api/client.ts';
import type { Session } from './api/types.ts';
import { Shell } from './layout/shell.tsx';
import { matchPath, navigate, useLocation } from './router.tsx';
import { rememberSession, SessionContext } from './session.tsx';
import { Loading } from './ui/components.tsx';

type Page = LazyExoticComponent<ComponentType<{ params: Record<string, string> }>>;

// One chunk per page.
const pages = {
  signIn: lazy(() => import('./pages/sign-in.tsx')),
  signUp: lazy(() => import('./pages/sign-up.tsx')),
  forgot: lazy(() => import('./pages/forgot-password.tsx')),
  reset: lazy(() => import('./pages/reset-password.tsx')),
  invite: lazy(() => import('./pages/invite.tsx')),
  verifyEmail: lazy(() => import('./pages/verify-email.tsx')),
  keys: lazy(() => import('./pages/keys.tsx')),
  key: lazy(() => import('./pages/key-detail.tsx')),
  usage: lazy(() => import('./pages/usage.tsx')),
  webhooks: lazy(() => import('./pages/webhooks.tsx')),
  webhookNew: lazy(() => import('./pages/webhook-new.tsx')),
  webhook: lazy(() => import('./pages/webhook-detail.tsx')),
  wallets: lazy(() => import('./pages/wallets.tsx')),
  wallet: lazy(() => import('./pages/wallet-detail.tsx')),
  policies: lazy(() => import('./pages/policies.tsx')),
  policyEdit: lazy(() => import('./pages/policy-edit.tsx')),
  policy: lazy(() => import('./pages/policy-detail.tsx')),
  chains: lazy(() => import('./pages/chains.tsx')),
  members: lazy(() => import('./pages/members.tsx')),
  operator: lazy(() => import('./pages/operator.tsx')),
  notFound: lazy(() => import('./pages/not-found.tsx')),
} satisfies Record<string, Page>;

/** Pages for people who are not signed in (the invitation and email-verification pages serve both). */
const publicRoutes: [string, Page][] = [
  ['/sign-in', pages.signIn],
  ['/sign-up', pages.signUp],
  ['/forgot-password', pages.forgot],
  ['/reset-password', pages.reset],
];

const appRoutes: [string, Page][] = [
  ['/keys', pages.keys],
  ['/keys/:id', pages.key],
  ['/usage', pages.usage],
  ['/webhooks', pages.webhooks],
  ['/webhooks/new', pages.webhookNew],
  ['/webhooks/:id', pages.webhook],
  ['/wallets', pages.wallets],
  ['/wallets/:address', pages.wallet],
  ['/gas-policies', pages.policies],
  ['/gas-policies/new', pages.policyEdit],
  ['/gas-policies/:id/edit', pages.policyEdit],
  ['/gas-policies/:id', pages.policy],
  ['/chains', pages.chains],
  ['/members', pages.members],
  ['/operator', pages.operator],
];

function find(routes: [string, Page][], path: string): { page: Page; params: Record<string, string> } | undefined {
  for (const [pattern, page] of routes) {
    const params = matchPath(pattern, path);
    if (params) return { page, params };
  }
  return undefined;
}

export function App() {
  const [session, setSessionState] = useState<Session | null | undefined>(undefined);
  const [loadError, setLoadError] = useState<string | undefined>();
  const { path, query } = useLocation();

  const setSession = useCallback((next: Session | null) => {
    rememberSession(next);
    setSessionState(next);
  }, []);

  useEffect(() => {
    getSession().then(setSession, (error: unknown) => {
      if (error instanceof ApiError && error.status === 401) setSession(null);
      else setLoadError(error instanceof Error ? error.message : String(error));
    });
  }, [setSession]);

  const publicMatch = find(publicRoutes, path);
  const isInvite = path === '/invite';
  // Serves both: a signed-in user confirming an invitation, and a new user finishing the sign-up.
  const isVerify = path === '/verify-email';
  const here = `${path}${query.size ? `?${query}` : ''}`;

  useEffect(() => {
    if (session === null && !publicMatch && !isInvite && !isVerify)
      navigate(`/sign-in?next=${encodeURIComponent(here)}`, { replace: true });
    else if (session && publicMatch && path !== '/reset-password') navigate(safeNext(query.get('next')), { replace: true });
    else if (session && path === '/') navigate('/keys', { replace: true });
  }, [session, publicMatch, isInvite, isVerify, here, path, query]);

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
  if (session === undefined) return <Loading what="Loading the dashboard" />;

  let content: ReactElement;
  if (isInvite) {
    content = <pages.invite />;
  } else if (isVerify) {
    content = <pages.verifyEmail />;
  } else if (!session) {
    const Page = publicMatch?.page ?? pages.signIn;
    content = <Page params={publicMatch?.params ?? {}} />;
  } else {
    const match = find(appRoutes, path);
    const Page = match?.page ?? pages.notFound;
    content = (
      <Shell>
        {/* A new account is a new page: nothing of the previous one stays on screen. */}
        <Page key={`${session.account.id}:${path}`} params={match?.params ?? {}} />
      </Shell>
    );
  }
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
