import { type ReactNode, useState } from 'react';
import type { ApiError } from '../api/client.ts';
import { ConfirmDialog } from './dialog.tsx';
import { useAction } from './hooks.ts';

/** A state change on one item that a dialog confirms first (revoke this key, remove this member). */
export interface ConfirmedAction<T, R> {
  /** The item waiting for confirmation; the dialog is open while there is one. */
  item: T | undefined;
  ask: (item: T) => void;
  /** Closes the dialog and forgets a failed attempt's error. */
  close: () => void;
  /** Runs the action on the item and closes the dialog when it succeeded; undefined when it failed. */
  confirm: () => Promise<{ result: R } | undefined>;
  busy: boolean;
  error: ApiError | undefined;
}

/**
 * The state of a confirmed action; `ConfirmActionDialog` draws it.
 * @example const revoke = useConfirmedAction((key: ApiKey) => revokeKey(key.id)); // revoke.ask(key) opens the dialog
 */
export function useConfirmedAction<T, R>(action: (item: T) => Promise<R>): ConfirmedAction<T, R> {
  const [item, setItem] = useState<T | undefined>();
  // Wrapped, so an action answered by a 204 (no value) still counts as done.
  const state = useAction(async (target: T) => ({ result: await action(target) }));
  const close = () => {
    state.setError(undefined);
    setItem(undefined);
  };
  return {
    item,
    ask: setItem,
    close,
    async confirm() {
      if (item === undefined) return undefined;
      const done = await state.run(item);
      if (done) setItem(undefined);
      return done;
    },
    busy: state.busy,
    error: state.error,
  };
}

/** "Are you sure?" for a confirmed action: open while it has an item; `onDone` after it succeeded. */
export function ConfirmActionDialog<T, R>({
  action,
  title,
  confirmLabel,
  danger,
  onDone,
  children,
}: {
  action: ConfirmedAction<T, R>;
  title: string;
  confirmLabel: string;
  danger?: boolean;
  onDone?: (result: R) => void;
  /** What the action does to this item, in words. */
  children: (item: T) => ReactNode;
}) {
  if (action.item === undefined) return null;
  return (
    <ConfirmDialog
      title={title}
      confirmLabel={confirmLabel}
      danger={danger}
      busy={action.busy}
      error={action.error}
      onClose={action.close}
      onConfirm={async () => {
        const done = await action.confirm();
        if (done) onDone?.(done.result);
      }}
    >
      {children(action.item)}
    </ConfirmDialog>
  );
}
