import { describe, expect, it } from 'vitest';
import { sources } from '../support/source-imports.ts';

/** Static imports and re-exports (`import type` included), not `import(...)`. */
function staticImportsOf(text: string): string[] {
  return [
    ...[...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*'([^']+)'/g)].map((match) => match[1]!),
    ...[...text.matchAll(/(?:^|\n)\s*import\s*'([^']+)'/g)].map((match) => match[1]!),
  ];
}

/**
 * Issue 36, item 4: tracing off costs nothing at start. The OpenTelemetry packages and the module over
 * them are loaded by `startTracing` with `import()`, which runs only when tracing is configured; no
 * other module of the service may import them, or every start would load the SDK.
 */
describe('tracing: the OpenTelemetry SDK loads only when tracing is on', () => {
  const files = sources('src');

  it('only src/tracing/otel-tracing.ts imports @opentelemetry/* statically', () => {
    const importers = files
      .filter(({ text }) => staticImportsOf(text).some((specifier) => specifier.startsWith('@opentelemetry/')))
      .map(({ path }) => path);
    expect(importers).toEqual(['src/tracing/otel-tracing.ts']);
  });

  it('nothing imports otel-tracing.ts statically; start-tracing.ts loads it with import()', () => {
    const importers = files
      .filter(({ text }) =>
        staticImportsOf(text).some((specifier) => specifier.endsWith('/otel-tracing.ts') || specifier === './otel-tracing.ts'),
      )
      .map(({ path }) => path);
    expect(importers).toEqual([]);
    const start = files.find(({ path }) => path === 'src/tracing/start-tracing.ts')!;
    expect(start.text).toContain("import('./otel-tracing.ts')");
    expect(staticImportsOf(start.text).filter((specifier) => !specifier.startsWith('.') && specifier !== 'pino')).toEqual([]);
  });
});
