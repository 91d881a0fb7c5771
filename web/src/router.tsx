// A tiny router on the History API: a path pattern per page (`/webhooks/:id`), links, navigation.
import { type AnchorHTMLAttributes, type MouseEvent, useSyncExternalStore } from 'react';

const changed = 'blockyard:navigate';

function subscribe(listener: () => void): () => void {
  window.addEventListener('popstate', listener);
  window.addEventListener(changed, listener);
  return () => {
    window.removeEventListener('popstate', listener);
    window.removeEventListener(changed, listener);
  };
}

const snapshot = () => window.location.pathname + window.location.search;

/** The current path and query, re-rendering on every navigation. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const current = useSyncExternalStore(subscribe, snapshot);
  const url = new URL(current, window.location.origin);
  return { path: pathOf(url), query: url.searchParams };
}

/** The path the app routes by: without trailing slashes. */
const pathOf = (url: { pathname: string }) => url.pathname.replace(/\/+$/, '') || '/';

/** The current path, outside rendering. */
export const currentPath = () => pathOf(window.location);

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === snapshot()) return;
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.dispatchEvent(new Event(changed));
  window.scrollTo(0, 0);
}

/**
 * The parameters of `path` under `pattern`, or undefined when it does not match.
 * @example matchPath('/webhooks/:id', '/webhooks/wh_1') // { id: 'wh_1' }
 */
export function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/').filter(Boolean);
  const have = path.split('/').filter(Boolean);
  if (want.length !== have.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, part] of want.entries()) {
    const value = have[index] as string;
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(value);
    else if (part !== value) return undefined;
  }
  return params;
}

/** An `<a>` that navigates without a reload (a modified click still opens a new tab). */
export function Link({ to, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a href={to} onClick={follow} {...rest} />;
}
