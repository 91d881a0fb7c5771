import type { ReactNode } from 'react';

/** The centred card of the pages before signing in. */
export function AuthLayout({ title, children, footer }: { title: string; children: ReactNode; footer?: ReactNode }) {
  return (
    <div className="auth-page">
      <main className="auth-card">
        <div className="auth-brand">
          <svg viewBox="0 0 32 32" aria-hidden="true" focusable="false" className="brand-mark">
            <rect width="32" height="32" rx="7" />
            <path d="M9 9h14v6H9zM9 17h6v6H9zM17 17h6v6h-6z" />
          </svg>
          <span>Blockyard</span>
        </div>
        <h1>{title}</h1>
        {children}
        {footer && <div className="auth-footer">{footer}</div>}
      </main>
    </div>
  );
}
