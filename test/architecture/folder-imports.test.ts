import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, sources } from '../support/source-imports.ts';

/** For each folder of src/, the folders it imports, each with one import that shows it (`file -> imported file`). */
type FolderGraph = Map<string, Map<string, string>>;

/** The first-level folder under src/ of a path from the repository's root, or undefined outside one. */
function folderOf(path: string): string | undefined {
  const [top, folder, ...rest] = path.split('/');
  return top === 'src' && folder !== undefined && rest.length > 0 ? folder : undefined;
}

/** Which folder of src/ imports which, from every relative import, type import, re-export and dynamic import. */
function folderGraph(): FolderGraph {
  const graph: FolderGraph = new Map();
  for (const { path, text } of sources('src')) {
    const from = folderOf(path);
    if (from === undefined) continue;
    if (!graph.has(from)) graph.set(from, new Map());
    for (const specifier of importsOf(text)) {
      if (!specifier.startsWith('.')) continue;
      const target = join(dirname(path), specifier);
      const to = folderOf(target);
      if (to === undefined || to === from) continue;
      const imported = graph.get(from)!;
      if (!imported.has(to)) imported.set(to, `${path} -> ${target}`);
    }
  }
  return graph;
}

/** The pairs of folders that import each other, each with an import of each direction. */
function mutualImports(graph: FolderGraph): string[] {
  const pairs: string[] = [];
  for (const [a, imported] of graph) {
    for (const [b, example] of imported) {
      const back = graph.get(b)?.get(a);
      if (back !== undefined && a < b) pairs.push(`${a} <-> ${b}: ${example}; ${back}`);
    }
  }
  return pairs.sort();
}

/** The strongly connected components of more than one folder (Tarjan's algorithm). */
function circles(graph: FolderGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (folder: string) => {
    index.set(folder, index.size);
    low.set(folder, index.get(folder)!);
    stack.push(folder);
    for (const next of graph.get(folder)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(folder, Math.min(low.get(folder)!, low.get(next)!));
      } else if (stack.includes(next)) {
        low.set(folder, Math.min(low.get(folder)!, index.get(next)!));
      }
    }
    if (low.get(folder) !== index.get(folder)) return;
    const component = stack.splice(stack.indexOf(folder));
    if (component.length > 1) found.push(component.sort());
  };
  for (const folder of graph.keys()) if (!index.has(folder)) visit(folder);
  return found;
}

/** The shortest way round a circle from its first folder back to it, one import a step. */
function wayRound(graph: FolderGraph, component: string[]): string {
  const inside = new Set(component);
  const start = component[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const folder = queue.shift()!;
    for (const next of graph.get(folder)?.keys() ?? []) {
      if (!inside.has(next) || cameFrom.has(next)) continue;
      cameFrom.set(next, folder);
      if (next === start) queue.length = 0;
      else queue.push(next);
    }
  }
  const steps: string[] = [];
  for (let to = start, from = cameFrom.get(start)!; ; to = from, from = cameFrom.get(from)!) {
    steps.unshift(`${from} -> ${to} (${graph.get(from)!.get(to)})`);
    if (from === start) break;
  }
  return steps.join(', ');
}

/**
 * Issue 35, item 9: dependencies between the folders of src/ run one way (core at the bottom, the
 * service's wiring on top), so a folder can be read, tested and changed knowing only those below it.
 */
describe('layering: the folders of src/ import one another one way', () => {
  const graph = folderGraph();

  it('no two folders import each other', () => {
    expect(mutualImports(graph)).toEqual([]);
  });

  it('no longer circle of folders either', () => {
    const found = circles(graph).map((component) => `${component.join(', ')}: ${wayRound(graph, component)}`);
    expect(found).toEqual([]);
  });
});
