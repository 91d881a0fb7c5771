// Which page an address shows, signed in or not: one chunk per page.
import {
  getChains,
  getPolicy,
  getPolicyUsage,
  getWebhook,
  listDeliveries,
  listKeys,
  listMembers,
  listPolicies,
  listWallets,
  listWebhooks,
} from './api/client.ts';
import { type PageChunk, pageChunk } from './page-chunk.tsx';
import { defaultUsageRange, usageByKey, usageByMethod, usageWindow } from './pages/usage-window.ts';
import { matchPath } from './router.tsx';
import { listPageSize } from './ui/lists.ts';

export const pages = {
  signIn: pageChunk(() => import('./pages/sign-in.tsx')),
  signUp: pageChunk(() => import('./pages/sign-up.tsx')),
  forgot: pageChunk(() => import('./pages/forgot-password.tsx')),
  reset: pageChunk(() => import('./pages/reset-password.tsx')),
  invite: pageChunk(() => import('./pages/invite.tsx')),
  verifyEmail: pageChunk(() => import('./pages/verify-email.tsx')),
  keys: pageChunk(() => import('./pages/keys.tsx')),
  key: pageChunk(() => import('./pages/key-detail.tsx')),
  usage: pageChunk(() => import('./pages/usage.tsx')),
  webhooks: pageChunk(() => import('./pages/webhooks.tsx')),
  webhookNew: pageChunk(() => import('./pages/webhook-new.tsx')),
  webhook: pageChunk(() => import('./pages/webhook-detail.tsx')),
  wallets: pageChunk(() => import('./pages/wallets.tsx')),
  wallet: pageChunk(() => import('./pages/wallet-detail.tsx')),
  policies: pageChunk(() => import('./pages/policies.tsx')),
  policyEdit: pageChunk(() => import('./pages/policy-edit.tsx')),
  policy: pageChunk(() => import('./pages/policy-detail.tsx')),
  chains: pageChunk(() => import('./pages/chains.tsx')),
  members: pageChunk(() => import('./pages/members.tsx')),
  operator: pageChunk(() => import('./pages/operator.tsx')),
  notFound: pageChunk(() => import('./pages/not-found.tsx')),
};

/** Pages for people who are not signed in (the invitation and email-verification pages serve both). */
const publicRoutes: [string, PageChunk][] = [
  ['/sign-in', pages.signIn],
  ['/sign-up', pages.signUp],
  ['/forgot-password', pages.forgot],
  ['/reset-password', pages.reset],
];

/** What a page reads first, asked for beside the session call on a cold load (the same calls the page makes). */
type FirstReads = (params: Record<string, string>) => void;

const firstPage = { page: 1, limit: listPageSize };

const appRoutes: [string, PageChunk, FirstReads?][] = [
  ['/keys', pages.keys, () => listKeys()],
  ['/keys/:id', pages.key, () => listKeys()],
  [
    '/usage',
    pages.usage,
    () => {
      const window = usageWindow(defaultUsageRange);
      usageByKey(defaultUsageRange, window);
      usageByMethod(defaultUsageRange, window);
      listKeys();
    },
  ],
  ['/webhooks', pages.webhooks, () => listWebhooks(firstPage)],
  ['/webhooks/new', pages.webhookNew],
  [
    '/webhooks/:id',
    pages.webhook,
    ({ id }) => {
      getWebhook(id!);
      listDeliveries(id!, firstPage);
    },
  ],
  ['/wallets', pages.wallets, () => listWallets(firstPage)],
  ['/wallets/:address', pages.wallet],
  ['/gas-policies', pages.policies, () => listPolicies(firstPage)],
  ['/gas-policies/new', pages.policyEdit],
  ['/gas-policies/:id/edit', pages.policyEdit],
  [
    '/gas-policies/:id',
    pages.policy,
    ({ id }) => {
      getPolicy(id!);
      getPolicyUsage(id!);
    },
  ],
  ['/chains', pages.chains, () => getChains()],
  ['/members', pages.members, () => listMembers()],
  ['/operator', pages.operator],
];

export interface PageAt {
  page: PageChunk;
  params: Record<string, string>;
  /** Asks for what the page reads first (see `readEarly`). */
  firstReads?: () => void;
  /** Drawn inside the signed-in shell (menu, account switcher). */
  inShell: boolean;
}

function find(
  routes: [string, PageChunk, FirstReads?][],
  path: string,
): { page: PageChunk; params: Record<string, string>; firstReads?: () => void } | undefined {
  for (const [pattern, page, reads] of routes) {
    const params = matchPath(pattern, path);
    if (params) return { page, params, ...(reads ? { firstReads: () => reads(params) } : {}) };
  }
  return undefined;
}

/**
 * The page `path` shows; undefined for a signed-in user at `/` or on a sign-in page, whom the app sends
 * on (to `next` or the keys page). A signed-out user on a page behind the sign-in sees the sign-in page.
 */
export function pageAt(path: string, signedIn: boolean): PageAt | undefined {
  // Both serve either: a signed-in user confirming an invitation, a new user finishing the sign-up.
  if (path === '/invite') return { page: pages.invite, params: {}, inShell: false };
  if (path === '/verify-email') return { page: pages.verifyEmail, params: {}, inShell: false };
  const open = find(publicRoutes, path);
  if (!signedIn) return { page: open?.page ?? pages.signIn, params: open?.params ?? {}, inShell: false };
  // A reset link works for whoever opens it.
  if (path === '/reset-password') return { page: pages.reset, params: {}, inShell: false };
  if (open || path === '/') return undefined;
  const match = find(appRoutes, path);
  return {
    page: match?.page ?? pages.notFound,
    params: match?.params ?? {},
    inShell: true,
    ...(match?.firstReads ? { firstReads: match.firstReads } : {}),
  };
}

/** Is `path` a page for people who are not signed in (a signed-in user is sent on from it)? */
export const isSignInPage = (path: string) => path !== '/reset-password' && find(publicRoutes, path) !== undefined;

/** Every page's chunk, fetched when the browser is idle: a later click draws its page at once. */
export function loadEveryPage(): void {
  for (const page of Object.values(pages)) void page.load();
}
