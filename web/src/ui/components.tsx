import {
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
  useEffect,
  useId,
  useRef,
  useState,
} from 'react';
import type { ApiError } from '../api/client.ts';

/**
 * Whether an API error is about `field`: its parameter is the field or below it
 * (`rules.rate_limit.ops` is about `rules.rate_limit`; `config.addresses[2]` about `config.addresses`).
 */
export function isAbout(error: ApiError | undefined, field: string): boolean {
  const param = error?.param;
  if (!param) return false;
  return param === field || param.startsWith(`${field}.`) || param.startsWith(`${field}[`);
}

/** A value the API found missing or empty: a form says what to give in its own words instead. */
function isBlank(error: ApiError): boolean {
  return /^missing required /.test(error.message) || /: must not be (?:empty|blank)$/.test(error.message);
}

/** `must be at most 200 characters long` as `Must be at most 200 characters long.` */
export function asSentence(text: string): string {
  const trimmed = text.trim();
  return withStop(trimmed.charAt(0).toUpperCase() + trimmed.slice(1));
}

const withStop = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/**
 * The API's message for the field it sits next to: `invalid parameter 'config.addresses[2]': must be …`
 * reads `Entry 3: must be ….`; a missing or empty value reads `blank`, the form's own words for it
 * (`Give the policy a name.`), or `Required.`
 */
export function fieldMessage(error: ApiError, blank?: string): string {
  if (isBlank(error)) return blank ?? 'Required.';
  const match = /^(?:invalid|unknown) [a-z ]*?'[^']+':? ?(.*)$/s.exec(error.message);
  if (!match?.[1]) return asSentence(error.message);
  const entry = /\[(\d+)\]/.exec(error.param ?? '');
  return entry ? `Entry ${Number(entry[1]) + 1}: ${withStop(match[1].trim())}` : asSentence(match[1]);
}

/**
 * The error's message when it is about `field`, for the message next to that field; `blank` is what
 * the form says when the field was left empty.
 */
export function errorFor(error: ApiError | undefined, field: string | readonly string[], blank?: string): string | undefined {
  const fields = typeof field === 'string' ? [field] : field;
  return error && fields.some((name) => isAbout(error, name)) ? fieldMessage(error, blank) : undefined;
}

/** An error shown in words, unless it is already shown next to one of `fields`. */
export function ErrorMessage({ error, fields = [] }: { error: ApiError | undefined; fields?: readonly string[] }) {
  if (!error || fields.some((field) => isAbout(error, field))) return null;
  return (
    <div className="alert alert-error" role="alert">
      {error.message}
    </div>
  );
}

interface FieldProps {
  label: string;
  hint?: ReactNode;
  error?: string;
  className?: string;
}

function FieldFrame({ id, label, hint, error, className, children }: FieldProps & { id: string; children: ReactNode }) {
  return (
    <div className={`field${error ? ' field-invalid' : ''}${className ? ` ${className}` : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children}
      {hint && (
        <div className="hint" id={`${id}-hint`}>
          {hint}
        </div>
      )}
      {error && (
        <div className="field-error" id={`${id}-error`} role="alert">
          {error}
        </div>
      )}
    </div>
  );
}

function describedBy(id: string, hint: unknown, error: unknown): string | undefined {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean);
  return ids.length ? ids.join(' ') : undefined;
}

export function TextField({ label, hint, error, className, ...input }: FieldProps & InputHTMLAttributes<HTMLInputElement>) {
  const generated = useId();
  const id = input.id ?? generated;
  return (
    <FieldFrame id={id} label={label} hint={hint} error={error} className={className}>
      <input {...input} id={id} aria-invalid={error ? true : undefined} aria-describedby={describedBy(id, hint, error)} />
    </FieldFrame>
  );
}

export function TextArea({ label, hint, error, className, ...input }: FieldProps & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const generated = useId();
  const id = input.id ?? generated;
  return (
    <FieldFrame id={id} label={label} hint={hint} error={error} className={className}>
      <textarea {...input} id={id} aria-invalid={error ? true : undefined} aria-describedby={describedBy(id, hint, error)} />
    </FieldFrame>
  );
}

export function SelectField({
  label,
  hint,
  error,
  className,
  children,
  ...select
}: FieldProps & SelectHTMLAttributes<HTMLSelectElement>) {
  const generated = useId();
  const id = select.id ?? generated;
  return (
    <FieldFrame id={id} label={label} hint={hint} error={error} className={className}>
      <select {...select} id={id} aria-invalid={error ? true : undefined} aria-describedby={describedBy(id, hint, error)}>
        {children}
      </select>
    </FieldFrame>
  );
}

/** Copies `text`; says so for a moment. Works without the Clipboard API (plain http) by selecting a textarea. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | undefined>();
  const copy = async () => {
    let ok = false;
    try {
      await navigator.clipboard.writeText(text);
      ok = true;
    } catch {
      const area = document.createElement('textarea');
      area.value = text;
      area.setAttribute('readonly', '');
      area.className = 'offscreen';
      document.body.append(area);
      area.select();
      ok = document.execCommand('copy');
      area.remove();
    }
    setCopied(ok ? 'yes' : 'no');
    window.setTimeout(() => setCopied(undefined), 2000);
  };
  return (
    <button type="button" className="button button-secondary button-small" onClick={copy}>
      {copied === 'yes' ? 'Copied' : copied === 'no' ? 'Select and copy by hand' : label}
      <span className="visually-hidden" aria-live="polite">
        {copied === 'yes' ? 'Copied to the clipboard' : ''}
      </span>
    </button>
  );
}

/** A secret shown once: the value, a copy button, and a warning that it will not be shown again. */
export function SecretOnce({ label, value, warning }: { label: string; value: string; warning: string }) {
  const id = useId();
  return (
    <div className="secret">
      <div className="alert alert-warning">{warning}</div>
      <label htmlFor={id}>{label}</label>
      <div className="secret-row">
        <input id={id} className="mono" readOnly value={value} onFocus={(event) => event.currentTarget.select()} />
        <CopyButton text={value} />
      </div>
    </div>
  );
}

const statusTone: Record<string, string> = {
  active: 'good',
  succeeded: 'good',
  deployed: 'good',
  healthy: 'good',
  live: 'info',
  paused: 'warn',
  pending: 'warn',
  counterfactual: 'neutral',
  test: 'neutral',
  disabled: 'bad',
  failed: 'bad',
  revoked: 'bad',
  unhealthy: 'bad',
  cancelled: 'neutral',
  owner: 'info',
  member: 'neutral',
};

export function Badge({ children, tone }: { children: string; tone?: string }) {
  return <span className={`badge badge-${tone ?? statusTone[children] ?? 'neutral'}`}>{children}</span>;
}

export function PageHeader({ title, description, actions }: { title: string; description?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="page-header">
      <div>
        <h1>{title}</h1>
        {description && <p className="page-description">{description}</p>}
      </div>
      {actions && <div className="page-actions">{actions}</div>}
    </div>
  );
}

export function Card({
  title,
  actions,
  children,
  className,
}: {
  title?: string;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  return (
    <section className={`card${className ? ` ${className}` : ''}`}>
      {(title || actions) && (
        <div className="card-header">
          {title && <h2>{title}</h2>}
          {actions}
        </div>
      )}
      {children}
    </section>
  );
}

/**
 * A table that scrolls sideways when it is wider than its card. While it does, the scrolling box takes
 * focus (a named region), so the keyboard can scroll it too; while it fits, it is no extra Tab stop.
 */
export function TableWrap({ label, children }: { label: string; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const box = ref.current;
    if (!box) return;
    const update = () => {
      if (box.scrollWidth > box.clientWidth) {
        box.tabIndex = 0;
        box.setAttribute('role', 'region');
        box.setAttribute('aria-label', label);
      } else {
        box.removeAttribute('tabindex');
        box.removeAttribute('role');
        box.removeAttribute('aria-label');
      }
    };
    update();
    // The box resizes with the window; the table inside it, with its rows.
    const observer = new ResizeObserver(update);
    observer.observe(box);
    if (box.firstElementChild) observer.observe(box.firstElementChild);
    return () => observer.disconnect();
  }, [label]);
  return (
    <div ref={ref} className="table-wrap">
      {children}
    </div>
  );
}

/** The header of a table's last column, which holds each row's buttons: named for screen readers only. */
export function ActionsHeader() {
  return (
    <th scope="col">
      <span className="visually-hidden">Actions</span>
    </th>
  );
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p className="loading" role="status">
      {what}…
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="empty">{children}</div>;
}

/** Previous / next for the list routes' `page` and `limit`. */
export function Pager({
  page,
  limit,
  total,
  onPage,
}: {
  page: number;
  limit: number;
  total: number;
  onPage: (page: number) => void;
}) {
  const pages = Math.max(1, Math.ceil(total / limit));
  if (pages <= 1) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button
        type="button"
        className="button button-secondary button-small"
        disabled={page <= 1}
        onClick={() => onPage(page - 1)}
      >
        Previous
      </button>
      <span>
        Page {page} of {pages}
      </span>
      <button
        type="button"
        className="button button-secondary button-small"
        disabled={page >= pages}
        onClick={() => onPage(page + 1)}
      >
        Next
      </button>
    </nav>
  );
}
