import { type ComponentType, type LazyExoticComponent, lazy, useState } from 'react';

export type PageProps = { params: Record<string, string> };

/** A page in a chunk of its own. */
export interface PageChunk {
  /** Fetches the chunk (once); settles when it is here or failed to come (rendering then reports it). */
  load: () => Promise<void>;
  /** The page, once its chunk is here. */
  loaded: () => ComponentType<PageProps> | undefined;
  lazy: LazyExoticComponent<ComponentType<PageProps>>;
}

export function pageChunk(importer: () => Promise<{ default: ComponentType<PageProps> }>): PageChunk {
  let loaded: ComponentType<PageProps> | undefined;
  let loading: Promise<{ default: ComponentType<PageProps> }> | undefined;
  const fetchChunk = () => {
    loading ??= importer().then(
      (module) => {
        loaded = module.default;
        return module;
      },
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };
  return {
    load: () =>
      fetchChunk().then(
        () => undefined,
        () => undefined,
      ),
    loaded: () => loaded,
    lazy: lazy(fetchChunk),
  };
}

/**
 * Draws a page of a chunk. One whose chunk is already here is drawn at once, where React.lazy alone
 * suspends on its first render even then, and React shows a suspended page no sooner than 300 ms after
 * its fallback was drawn (its fallback throttle): every cold load paid those 300 ms.
 */
export function ChunkPage({ chunk, params }: { chunk: PageChunk; params: Record<string, string> }) {
  // Chosen once per page, kept in state: switching from the lazy form to the loaded page on a later
  // render would remount it and lose what it holds.
  const [shown, setShown] = useState(() => ({ chunk, Page: chunk.loaded() ?? chunk.lazy }));
  let { Page } = shown;
  if (shown.chunk !== chunk) {
    Page = chunk.loaded() ?? chunk.lazy;
    setShown({ chunk, Page });
  }
  return <Page params={params} />;
}
