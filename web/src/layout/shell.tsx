import { type ReactNode, Suspense, useEffect, useId, useRef, useState } from 'react';
import { signOut, switchAccount } from '../api/client.ts';
import { Link, navigate, useLocation } from '../router.tsx';
import { useSession, useSessionState } from '../session.tsx';
import { Loading } from '../ui/components.tsx';
import { asApiError } from '../ui/hooks.ts';

interface NavItem {
  to: string;
  label: string;
  icon: string;
}

// Tiny inline icons (paths in a 20x20 box), drawn with currentColor.
const icons: Record<string, string> = {
  keys: 'M12.5 2a5.5 5.5 0 0 0-5.2 7.3L2 14.6V18h3.4v-2h2v-2h2l1.3-1.3A5.5 5.5 0 1 0 12.5 2Zm1.5 5a1.5 1.5 0 1 1 0-3 1.5 1.5 0 0 1 0 3Z',
  usage: 'M3 17h14v1.5H3zM4 10h2.5v6H4zM8.75 5h2.5v11h-2.5zM13.5 8H16v8h-2.5z',
  webhooks:
    'M10 2a4 4 0 0 0-1.5 7.7L6 14a2.5 2.5 0 1 0 1.7 1l2.6-4.4A4 4 0 1 0 10 2Zm0 2a2 2 0 1 1 0 4 2 2 0 0 1 0-4Zm4.5 8a2.5 2.5 0 0 0-2.3 1.5H9v2h3.2a2.5 2.5 0 1 0 2.3-3.5Z',
  wallets:
    'M3 5.5A2.5 2.5 0 0 1 5.5 3H15v2H5.5a.5.5 0 0 0 0 1H17v11H5.5A2.5 2.5 0 0 1 3 14.5Zm10 5.5a1.25 1.25 0 1 0 0 2.5 1.25 1.25 0 0 0 0-2.5Z',
  gas: 'M4 3h8v14H4zM6 5v4h4V5zm8 2 2.5 2.5V15a1 1 0 0 1-2 0v-3H13v-1.5h1.5a1 1 0 0 1 1 1V15V10l-2-2z',
  chains: 'M7.5 6h-2a4 4 0 0 0 0 8h2v-2h-2a2 2 0 0 1 0-4h2zm5 0h2a4 4 0 0 1 0 8h-2v-2h2a2 2 0 0 0 0-4h-2zM6.5 9h7v2h-7z',
  members:
    'M7 9a3 3 0 1 0 0-6 3 3 0 0 0 0 6Zm0 1.5c-3 0-5 1.6-5 3.5v2h10v-2c0-1.9-2-3.5-5-3.5ZM14 9a2.5 2.5 0 1 0 0-5 2.5 2.5 0 0 0 0 5Zm.5 1.5c-.6 0-1.2.1-1.7.2 1 .8 1.7 2 1.7 3.3v2H18v-2c0-1.9-1.6-3.5-3.5-3.5Z',
  operator: 'M10 2 3 5v4.5c0 4.1 3 7.7 7 8.5 4-.8 7-4.4 7-8.5V5Zm0 3.2 4 1.7v2.6c0 2.7-1.7 5.1-4 5.9-2.3-.8-4-3.2-4-5.9V6.9Z',
};

function Icon({ name }: { name: string }) {
  return (
    <svg className="nav-icon" viewBox="0 0 20 20" aria-hidden="true" focusable="false">
      <path d={icons[name]} fill="currentColor" />
    </svg>
  );
}

export function Shell({ children }: { children: ReactNode }) {
  const session = useSession();
  const { path } = useLocation();
  const [navOpen, setNavOpen] = useState(false);
  const items: NavItem[] = [
    { to: '/keys', label: 'API keys', icon: 'keys' },
    { to: '/usage', label: 'Usage', icon: 'usage' },
    { to: '/webhooks', label: 'Webhooks', icon: 'webhooks' },
    { to: '/wallets', label: 'Smart wallets', icon: 'wallets' },
    { to: '/gas-policies', label: 'Gas policies', icon: 'gas' },
    { to: '/chains', label: 'Chains', icon: 'chains' },
    { to: '/members', label: 'Members', icon: 'members' },
    ...(session.user.operator ? [{ to: '/operator', label: 'Operator', icon: 'operator' }] : []),
  ];
  // A page change closes the narrow window's menu.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on each path change
  useEffect(() => setNavOpen(false), [path]);

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <aside className={`sidebar${navOpen ? ' sidebar-open' : ''}`} id="sidebar">
        <Link to="/keys" className="brand" aria-label="Blockyard home">
          <svg viewBox="0 0 32 32" aria-hidden="true" focusable="false" className="brand-mark">
            <rect width="32" height="32" rx="7" />
            <path d="M9 9h14v6H9zM9 17h6v6H9zM17 17h6v6h-6z" />
          </svg>
          <span>Blockyard</span>
        </Link>
        <nav aria-label="Main">
          <ul>
            {items.map((item) => {
              const current = path === item.to || path.startsWith(`${item.to}/`);
              return (
                <li key={item.to}>
                  <Link
                    to={item.to}
                    className={`nav-link${current ? ' nav-current' : ''}`}
                    aria-current={current ? 'page' : undefined}
                  >
                    <Icon name={item.icon} />
                    {item.label}
                  </Link>
                </li>
              );
            })}
          </ul>
        </nav>
        <div className="sidebar-footer">
          <a href="/docs" className="nav-link">
            API reference
          </a>
        </div>
      </aside>
      {navOpen && <button type="button" className="scrim" aria-label="Close the menu" onClick={() => setNavOpen(false)} />}
      <div className="main-column">
        <header className="topbar">
          <button
            type="button"
            className="icon-button menu-toggle"
            aria-label="Menu"
            aria-controls="sidebar"
            aria-expanded={navOpen}
            onClick={() => setNavOpen((open) => !open)}
          >
            <svg viewBox="0 0 20 20" aria-hidden="true" focusable="false">
              <path d="M3 5h14v2H3zm0 4h14v2H3zm0 4h14v2H3z" fill="currentColor" />
            </svg>
          </button>
          <AccountSwitcher />
          <UserMenu />
        </header>
        <main id="main" tabIndex={-1}>
          <Suspense fallback={<Loading />}>{children}</Suspense>
        </main>
      </div>
    </div>
  );
}

function AccountSwitcher() {
  const session = useSession();
  const { setSession } = useSessionState();
  const [error, setError] = useState<string | undefined>();
  const id = useId();
  if (session.accounts.length <= 1) {
    return (
      <div className="account-current">
        <span className="account-name">{session.account.name}</span>
        <span className="badge badge-info">{session.account.plan}</span>
      </div>
    );
  }
  return (
    <div className="account-switcher">
      <label htmlFor={id} className="visually-hidden">
        Account
      </label>
      <select
        id={id}
        value={session.account.id}
        onChange={async (event) => {
          setError(undefined);
          try {
            setSession(await switchAccount(event.target.value));
          } catch (caught) {
            setError(asApiError(caught).message);
          }
        }}
      >
        {session.accounts.map((account) => (
          <option key={account.id} value={account.id}>
            {account.name} ({account.role})
          </option>
        ))}
      </select>
      <span className="badge badge-info">{session.account.plan}</span>
      {error && (
        <span className="field-error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}

function UserMenu() {
  const session = useSession();
  const { setSession } = useSessionState();
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const menuId = useId();
  const wrapper = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return;
    wrapper.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
    const onDown = (event: MouseEvent) => {
      if (!wrapper.current?.contains(event.target as Node)) setOpen(false);
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        setOpen(false);
        button.current?.focus();
      }
    };
    document.addEventListener('mousedown', onDown);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('mousedown', onDown);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);

  const leave = async () => {
    try {
      await signOut();
      setSession(null);
      navigate('/sign-in', { replace: true });
    } catch (caught) {
      setError(asApiError(caught).message);
    }
  };

  return (
    <div className="user-menu" ref={wrapper}>
      <button
        ref={button}
        type="button"
        className="user-button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={menuId}
        onClick={() => setOpen((value) => !value)}
      >
        <span className="avatar" aria-hidden="true">
          {session.user.email.slice(0, 1).toUpperCase()}
        </span>
        <span className="user-email">{session.user.email}</span>
      </button>
      {open && (
        <div className="menu" id={menuId} role="menu" aria-label="User">
          <div className="menu-info">
            <div>{session.user.email}</div>
            <div className="muted">
              {session.account.role} of {session.account.name}
              {session.user.operator ? ' · operator' : ''}
            </div>
          </div>
          <button type="button" role="menuitem" className="menu-item" onClick={leave}>
            Sign out
          </button>
          {error && (
            <div className="field-error" role="alert">
              {error}
            </div>
          )}
        </div>
      )}
    </div>
  );
}
