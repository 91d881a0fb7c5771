import { type DependencyList, useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from '../api/client.ts';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  /** Loads again, keeping the data shown meanwhile. */
  reload: () => void;
}

export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  return new ApiError('client_error', error instanceof Error ? error.message : String(error), 0);
}

/** Runs `load` on mount and whenever `deps` change; an answer that arrives after a newer load is dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: DependencyList): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  const latest = useRef(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller lists what the load depends on
  useEffect(() => {
    const ticket = ++latest.current;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => ticket === latest.current && setState({ data, loading: false }),
      (error: unknown) =>
        ticket === latest.current && setState((previous) => ({ ...previous, error: asApiError(error), loading: false })),
    );
  }, [...deps, round]);
  const reload = useCallback(() => setRound((value) => value + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** A state change: `run` calls it, `busy` while it runs, `error` when it failed (cleared on the next run). */
export function useAction<A extends unknown[], T>(action: (...args: A) => Promise<T>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const run = useCallback(
    async (...args: A): Promise<T | undefined> => {
      setBusy(true);
      setError(undefined);
      try {
        return await action(...args);
      } catch (caught) {
        setError(asApiError(caught));
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    [action],
  );
  return { run, busy, error, setError };
}

/** Sets the document's title for a page. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Blockyard`;
  }, [title]);
}
