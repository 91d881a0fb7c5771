import { type FormEvent, type ReactNode, useEffect, useId, useRef } from 'react';
import type { ApiError } from '../api/client.ts';
import { ErrorMessage } from './components.tsx';

const focusable =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * A modal dialog: the page behind is inert (native `<dialog>` shown modal), Tab stays inside, Escape
 * closes it, and focus goes back to what had it before.
 */
export function Dialog({
  title,
  onClose,
  children,
  footer,
  onSubmit,
  wide,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  footer?: ReactNode;
  /** Makes the body a form: Enter submits. */
  onSubmit?: (event: FormEvent<HTMLFormElement>) => void;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const close = useRef(onClose);
  close.current = onClose;

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement as HTMLElement | null;
    if (!dialog.open) dialog.showModal();
    const first =
      dialog.querySelector<HTMLElement>('[autofocus], input, select, textarea') ?? dialog.querySelector<HTMLElement>(focusable);
    first?.focus();
    const onCancel = (event: Event) => {
      event.preventDefault();
      close.current();
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Tab') return;
      const items = [...dialog.querySelectorAll<HTMLElement>(focusable)].filter((item) => item.offsetParent !== null);
      if (items.length === 0) return;
      const [head, tail] = [items[0], items[items.length - 1]];
      if (event.shiftKey && document.activeElement === head) {
        event.preventDefault();
        tail?.focus();
      } else if (!event.shiftKey && document.activeElement === tail) {
        event.preventDefault();
        head?.focus();
      }
    };
    dialog.addEventListener('cancel', onCancel);
    dialog.addEventListener('keydown', onKey);
    return () => {
      dialog.removeEventListener('cancel', onCancel);
      dialog.removeEventListener('keydown', onKey);
      if (dialog.open) dialog.close();
      opener?.focus?.();
    };
  }, []);

  const body = (
    <>
      <div className="dialog-header">
        <h2 id={titleId}>{title}</h2>
        <button type="button" className="icon-button" aria-label="Close" onClick={onClose}>
          ×
        </button>
      </div>
      <div className="dialog-body">{children}</div>
      {footer && <div className="dialog-footer">{footer}</div>}
    </>
  );
  return (
    <dialog ref={ref} className={`dialog${wide ? ' dialog-wide' : ''}`} aria-labelledby={titleId}>
      {onSubmit ? (
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            onSubmit(event);
          }}
        >
          {body}
        </form>
      ) : (
        body
      )}
    </dialog>
  );
}

/** "Are you sure?": the action runs on confirm; its error is shown in the dialog. */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  danger,
  busy,
  error,
  onConfirm,
  onClose,
}: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  error?: ApiError;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Dialog
      title={title}
      onClose={onClose}
      footer={
        <DialogButtons
          onCancel={onClose}
          label={confirmLabel}
          busyLabel="Working…"
          busy={busy}
          danger={danger}
          onClick={onConfirm}
        />
      }
    >
      {children}
      <ErrorMessage error={error} />
    </Dialog>
  );
}

/** A dialog's footer: Cancel, then its action, a submit button unless it has `onClick`. */
export function DialogButtons({
  onCancel,
  label,
  busyLabel,
  busy,
  danger,
  onClick,
}: {
  onCancel: () => void;
  label: string;
  /** Shown instead of `label` while the action runs (`Saving…`). */
  busyLabel: string;
  busy?: boolean;
  danger?: boolean;
  onClick?: () => void;
}) {
  return (
    <>
      <button type="button" className="button button-secondary" onClick={onCancel}>
        Cancel
      </button>
      <button
        type={onClick ? 'button' : 'submit'}
        className={`button ${danger ? 'button-danger' : 'button-primary'}`}
        disabled={busy}
        onClick={onClick}
      >
        {busy ? busyLabel : label}
      </button>
    </>
  );
}
